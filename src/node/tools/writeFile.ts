// write_file and edit_file: compute the new content, show the diff for approval, then replace the file atomically (temp file + rename).
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { ToolResult } from '../../engine/ports.js';
import { parseToolArgs } from './toolArgs.js';
import { openConfinedFolder, openConfinedForReading } from './confined.js';
import { refuseOwnFiles } from './ownFiles.js';
import { unifiedDiff } from './diff.js';
import { resolveWorkspacePath } from './paths.js';
import type { ResolvedPath } from './paths.js';
import { TOOL_NAMES, editFileArgs, editFileHints, writeFileArgs, writeFileHints } from './schemas.js';
import { effects } from '../../engine/transcript/effects.js';
import { ToolError, decisionOf, errnoCode, feedbackSentence, toolError, toolOk } from './types.js';
import type { ApprovalDecision, ToolContext } from './types.js';

/** Files above this are not loaded to be diffed and rewritten; an agent has no business rewriting them whole. */
const MAX_EDIT_BYTES = 16 * 1024 * 1024;

function requireTrust(ctx: ToolContext, tool: string): void {
  if (!ctx.trusted()) {
    throw new ToolError(`${tool} is disabled because this workspace is not trusted. Ask the user to trust the workspace to allow changes.`);
  }
}

interface Current {
  readonly content: string;
  /** Not UTF-8 text: NUL bytes, or bytes that do not decode and re-encode to themselves. */
  readonly binary: boolean;
  readonly mode: number;
}

/** The file as it is now, or undefined when it does not exist; read through a descriptor checked to be in the workspace. */
async function readCurrent(roots: readonly string[], target: ResolvedPath): Promise<Current | undefined> {
  let handle: FileHandle;
  try {
    handle = await openConfinedForReading(roots, target.real, target.display);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return await readOpened(handle, target);
  } finally {
    await handle.close();
  }
}

async function readOpened(handle: FileHandle, target: ResolvedPath): Promise<Current> {
  const st = await handle.stat();
  if (st.isDirectory()) throw new ToolError(`"${target.display}" is a folder, not a file.`);
  if (!st.isFile()) throw new ToolError(`"${target.display}" is not a regular file, so it cannot be written.`);
  if (st.size > MAX_EDIT_BYTES)
    throw new ToolError(`"${target.display}" is too large to change with this tool (${st.size} bytes; the limit is ${MAX_EDIT_BYTES}).`);
  const bytes = await handle.readFile();
  const content = bytes.toString('utf8');
  // Text that does not survive a UTF-8 round trip (Latin-1, UTF-16) would be corrupted by a rewrite: treat it as binary.
  const binary = bytes.subarray(0, 8192).includes(0) || !Buffer.from(content, 'utf8').equals(bytes);
  return { content, binary, mode: st.mode & 0o7777 };
}

async function writeAtomically(roots: readonly string[], target: ResolvedPath, content: string, mode: number | undefined): Promise<void> {
  const dir = dirname(target.real);
  await mkdir(dir, { recursive: true });
  // Every name below resolves through the opened folder, checked to be inside the workspace: a swap of the folder
  // for a link after the check cannot redirect the write.
  const folder = await openConfinedFolder(roots, dir, target.display);
  // Same folder as the target, so the rename is atomic: a reader sees the old file or the new one, never half.
  const name = basename(target.real);
  const tmp = folder.inFolder(`.${name}.${randomBytes(6).toString('hex')}.capsule-tmp`);
  try {
    const handle = await open(tmp, 'wx', mode ?? 0o666);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mode !== undefined) await chmod(tmp, mode); // the umask may have narrowed it
    await rename(tmp, folder.inFolder(name));
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  } finally {
    await folder.close();
  }
}

function capDiff(diff: string, max: number): string {
  if (diff.length <= max) return diff;
  const kept = diff.slice(0, max);
  const cut = kept.lastIndexOf('\n') + 1 || max;
  const rest = diff.slice(cut).split('\n').length - 1;
  return `${diff.slice(0, cut)}[... diff cut for display: ${rest} more lines ...]\n`;
}

/** Shows the change, waits for approval, checks the file did not move underneath, and writes. */
async function applyChange(
  ctx: ToolContext,
  tool: string,
  target: ResolvedPath,
  before: Current | undefined,
  after: string,
  signal: AbortSignal,
): Promise<ToolResult | { added: number; removed: number }> {
  const name = target.display;
  const diff = before?.binary
    ? { text: `Binary file ${name} will be replaced with ${Buffer.byteLength(after)} bytes of text.\n`, stats: { added: 0, removed: 0 } }
    : unifiedDiff(before?.content ?? '', after, before === undefined ? '/dev/null' : `a/${name}`, `b/${name}`);
  const title = before === undefined ? `Create ${name}` : tool === TOOL_NAMES.editFile ? `Edit ${name}` : `Overwrite ${name}`;
  const detail = diff.text === '' ? `--- /dev/null\n+++ b/${name}\n(new empty file)\n` : capDiff(diff.text, ctx.limits.diffMaxChars);
  let decision: ApprovalDecision;
  try {
    const textBefore = before === undefined ? undefined : before.binary ? '' : before.content;
    decision = decisionOf(
      await ctx.approve(
        { kind: 'write', title, detail, path: name, absolutePath: target.real, ...(textBefore === undefined ? {} : { before: textBefore }), after },
        signal,
      ),
    );
  } catch (err) {
    if (signal.aborted) throw new ToolError('Cancelled.');
    throw err;
  }
  if (signal.aborted) throw new ToolError('Cancelled: nothing was written.');
  if (!decision.approved) {
    const said = feedbackSentence(decision);
    const declined = toolError(
      said === ''
        ? `The user declined the change to ${name}; nothing was written. Do not retry the same change; ask the user what they want instead.`
        : `The user declined the change to ${name}; nothing was written.${said}`,
    );
    return { ...declined, effects: effects({ source: 'measured', denied: true, failed: true }) };
  }
  const now = await readCurrent(ctx.roots, target);
  if ((now === undefined) !== (before === undefined) || (now !== undefined && now.content !== before?.content)) {
    return toolError(`${name} changed while waiting for approval, so nothing was written. Read it again and redo the change.`);
  }
  await writeAtomically(ctx.roots, target, after, before?.mode);
  return diff.stats;
}

export async function writeFileTool(ctx: ToolContext, argsJson: string, signal: AbortSignal): Promise<ToolResult> {
  const args = parseToolArgs(TOOL_NAMES.writeFile, argsJson, writeFileArgs, writeFileHints);
  requireTrust(ctx, TOOL_NAMES.writeFile);
  const target = await resolveWorkspacePath(ctx.roots, args.path);
  await refuseOwnFiles(ctx.ownFiles(), target.real, target.display, TOOL_NAMES.writeFile);
  const before = await readCurrent(ctx.roots, target);
  if (before !== undefined && before.content === args.content && !before.binary) {
    // A no-op, reported as one: measured effects that touch nothing, so the chat offers no "Show diff" for it.
    return { ...toolOk(`No change: ${target.display} already has exactly this content.`), effects: effects({ source: 'measured' }) };
  }
  const r = await applyChange(ctx, TOOL_NAMES.writeFile, target, before, args.content, signal);
  if ('isError' in r) return r;
  const lines = args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0);
  const ok = toolOk(
    before === undefined ? `Created ${target.display} (${lines} lines).` : `Wrote ${target.display} (${lines} lines; +${r.added} -${r.removed}).`,
  );
  return { ...ok, effects: effects({ source: 'measured', ...(before === undefined ? { created: [target.display] } : { modified: [target.display] }) }) };
}

function occurrences(haystack: string, needle: string): number[] {
  const at: number[] = [];
  // Step by one so overlapping matches count too: "aa" in "aaa" is ambiguous.
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) at.push(i);
  return at;
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

export async function editFileTool(ctx: ToolContext, argsJson: string, signal: AbortSignal): Promise<ToolResult> {
  const args = parseToolArgs(TOOL_NAMES.editFile, argsJson, editFileArgs, editFileHints);
  requireTrust(ctx, TOOL_NAMES.editFile);
  const target = await resolveWorkspacePath(ctx.roots, args.path);
  await refuseOwnFiles(ctx.ownFiles(), target.real, target.display, TOOL_NAMES.editFile);
  const before = await readCurrent(ctx.roots, target);
  if (before === undefined) throw new ToolError(`File not found: "${target.display}". Use write_file to create a new file.`);
  if (before.binary) throw new ToolError(`"${target.display}" is binary or not UTF-8 text; edit_file only changes UTF-8 text files.`);
  let { oldText, newText } = args;
  let at = occurrences(before.content, oldText);
  if (at.length === 0 && before.content.includes('\r\n') && !oldText.includes('\r')) {
    // Models write "\n"; a Windows-style file has "\r\n". Match and replace in the file's own style.
    oldText = oldText.replace(/\n/g, '\r\n');
    newText = newText.replace(/\r?\n/g, '\r\n');
    at = occurrences(before.content, oldText);
  }
  if (at.length === 0) {
    throw new ToolError(
      `oldText was not found in ${target.display}. It must match the file exactly, including whitespace, indentation and line breaks; read the file again with read_file and copy the text.`,
    );
  }
  if (at.length > 1) {
    const lines = at.slice(0, 10).map((i) => lineOf(before.content, i));
    throw new ToolError(
      `oldText matches ${at.length} places in ${target.display} (starting on lines ${lines.join(', ')}${at.length > 10 ? ', …' : ''}). Include more surrounding lines so that it matches exactly one place.`,
    );
  }
  if (oldText === newText) throw new ToolError('oldText and newText are the same, so there is nothing to change.');
  const index = at[0] ?? 0;
  const after = before.content.slice(0, index) + newText + before.content.slice(index + oldText.length);
  // Line-ending matching can turn two different texts into the same bytes: nothing to approve or write.
  if (after === before.content)
    return { ...toolOk(`No change: ${target.display} already has exactly this content.`), effects: effects({ source: 'measured' }) };
  const r = await applyChange(ctx, TOOL_NAMES.editFile, target, before, after, signal);
  if ('isError' in r) return r;
  const first = lineOf(before.content, index);
  return {
    ...toolOk(`Edited ${target.display} at line ${first} (+${r.added} -${r.removed}).`),
    effects: effects({ source: 'measured', modified: [target.display] }),
  };
}
