// search: ripgrep over the workspace, streamed and stopped at the result cap; paths printed relative to the workspace root.
import { spawn } from 'node:child_process';
import type { ToolResult } from '../../engine/ports.js';
import { parseToolArgs } from './toolArgs.js';
import { openConfinedForReading } from './confined.js';
import { displayPath, realRoots, resolveWorkspacePath } from './paths.js';
import { TOOL_NAMES, searchArgs, searchHints } from './schemas.js';
import { ToolError, errnoCode, toolError, toolOk } from './types.js';
import type { ToolContext } from './types.js';

const STDERR_KEEP = 4 * 1024;

interface RgRun {
  readonly matches: string[];
  /** True when we stopped ripgrep because more matches than the cap exist. */
  readonly more: boolean;
  /** True when ripgrep ran past the time limit and was stopped. */
  readonly timedOut: boolean;
  readonly code: number | null;
  readonly stderr: string;
}

/** ripgrep's fd 3 is the searched folder or file, opened and checked by us; it searches that, not a name. */
const TARGET_FD_PATH = '/proc/self/fd/3';

function runRg(
  rg: string,
  argv: readonly string[],
  cwd: string,
  max: number,
  timeoutMs: number,
  format: (line: string) => string,
  signal: AbortSignal,
  targetFd?: number,
): Promise<RgRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(rg, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe', targetFd ?? 'ignore'] });
    const { stdout, stderr: errors } = child;
    if (stdout === null || errors === null) {
      reject(new Error('ripgrep was started without output pipes'));
      return;
    }
    const matches: string[] = [];
    let more = false;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    let partial = '';
    let stderr = '';
    const onAbort = (): void => {
      child.kill('SIGKILL');
    };
    signal.addEventListener('abort', onAbort, { once: true });
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk: string) => {
      if (more) return;
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        if (line === '') continue;
        if (matches.length >= max) {
          // Enough: the rest would be thrown away, so stop ripgrep instead of reading it.
          more = true;
          child.kill('SIGKILL');
          return;
        }
        matches.push(format(line));
      }
    });
    errors.setEncoding('utf8');
    errors.on('data', (chunk: string) => {
      if (stderr.length < STDERR_KEEP) stderr += chunk.slice(0, STDERR_KEEP - stderr.length);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (!more && partial !== '' && matches.length < max) matches.push(format(partial));
      else if (!more && partial !== '') more = true;
      resolvePromise({ matches, more, timedOut, code, stderr });
    });
  });
}

export async function searchTool(ctx: ToolContext, argsJson: string, signal: AbortSignal): Promise<ToolResult> {
  const { limits } = ctx;
  const args = parseToolArgs(TOOL_NAMES.search, argsJson, searchArgs(limits), searchHints(limits));
  const target = await resolveWorkspacePath(ctx.roots, args.path ?? '.');
  if (!target.exists) throw new ToolError(`Path not found: "${target.display}". Use list_files to see what exists.`);
  // Opened and checked first, then handed to ripgrep as its fd 3: a folder swapped for a link after the check is
  // not what ripgrep searches (Linux; elsewhere it gets the checked path).
  const handle = await openConfinedForReading(ctx.roots, target.real, target.display);
  try {
    const st = await handle.stat();
    // ripgrep reads a named pipe or device given by name until it ends, which may be never.
    if (!st.isFile() && !st.isDirectory())
      throw new ToolError(`"${target.display}" is not a regular file or folder (a pipe, socket or device), so it cannot be searched.`);
    return await searchOpened(ctx, args, target, process.platform === 'linux' ? handle.fd : undefined, signal);
  } finally {
    await handle.close();
  }
}

async function searchOpened(
  ctx: ToolContext,
  args: { readonly query: string; readonly regex?: boolean; readonly maxResults?: number },
  target: { readonly real: string; readonly display: string },
  targetFd: number | undefined,
  signal: AbortSignal,
): Promise<ToolResult> {
  const { limits } = ctx;
  const roots = await realRoots(ctx.roots);
  const max = args.maxResults ?? limits.searchDefaultResults;
  const argv = [
    '--no-config',
    '--line-number',
    '--no-heading',
    '--with-filename',
    '--null',
    '--color',
    'never',
    '--smart-case',
    '--hidden',
    '--glob',
    '!.git',
    '--glob',
    '!node_modules',
    '--sort',
    'path',
    '--max-columns',
    String(limits.searchLineChars),
    '--max-columns-preview',
    ...(args.regex === true ? [] : ['--fixed-strings']),
    '--regexp',
    args.query,
    '--',
    targetFd === undefined ? target.real : TARGET_FD_PATH,
  ];
  const realOf = (p: string): string => (targetFd !== undefined && p.startsWith(TARGET_FD_PATH) ? target.real + p.slice(TARGET_FD_PATH.length) : p);
  // With --null each line is "path\0line:text", so a ':' in a file name cannot confuse the parse.
  const format = (line: string): string => {
    const nul = line.indexOf('\0');
    return nul === -1 ? line : `${displayPath(roots, realOf(line.slice(0, nul)))}:${line.slice(nul + 1)}`;
  };
  let run: RgRun;
  try {
    run = await runRg(ctx.ripgrepPath, argv, roots[0] ?? target.real, max, limits.searchTimeoutMs, format, signal, targetFd);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') {
      return toolError(
        `search is unavailable: ripgrep ("${ctx.ripgrepPath}") was not found. Install ripgrep (the "rg" command), or use list_files and read_file instead.`,
      );
    }
    throw err;
  }
  if (signal.aborted) throw new ToolError('Cancelled.');
  const where = target.display === '.' ? 'the workspace' : `"${target.display}"`;
  const late = `[search stopped after ${Math.round(limits.searchTimeoutMs / 1000)} s; narrow the query or the path (a simpler pattern, a subfolder).]`;
  if (run.timedOut && run.matches.length === 0) return toolError(`No matches for ${JSON.stringify(args.query)} in ${where} before the time limit. ${late}`);
  if (run.matches.length === 0) {
    if (run.code === 2 || (run.code !== 0 && run.code !== 1)) {
      return toolError(`search failed: ${run.stderr.trim() || `ripgrep exited with code ${run.code}`}`);
    }
    return toolOk(`No matches for ${JSON.stringify(args.query)} in ${where}.`);
  }
  const lines = [...run.matches];
  if (run.timedOut) lines.push(late);
  else if (run.more) {
    const raise = max < limits.searchMaxResults ? `, or pass a larger maxResults (at most ${limits.searchMaxResults})` : '';
    lines.push(`[Stopped at ${max} matches; there are more. Narrow the query or the path${raise}.]`);
  }
  return toolOk(lines.join('\n'));
}
