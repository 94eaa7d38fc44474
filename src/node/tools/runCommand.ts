// run_command: bash -c in the workspace after approval, in its own process group so a timeout or cancel kills everything it started.
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import type { ToolResult } from '../../engine/ports.js';
import { effects } from '../../engine/transcript/effects.js';
import { parseToolArgs } from './toolArgs.js';
import { checkpointProbe, commandEffects, startCommandProbe } from './commandEffects.js';
import { HeadTailBuffer } from './outputCap.js';
import { COMMAND_TAG_VAR, newCommandTag, type CommandTracker, type TaggedProcess } from './processGroups.js';
import { resolveWorkspacePath } from './paths.js';
import { TOOL_NAMES, runCommandArgs, runCommandHints } from './schemas.js';
import { ToolError, decisionOf, errorMessage, feedbackSentence, toolError } from './types.js';
import type { ApprovalDecision, ToolContext, ToolLimits } from './types.js';

/** Time between SIGTERM and SIGKILL: enough for a test runner to clean up, short enough not to stall the turn. */
const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long to wait for its output pipes to close before stopping what still holds them. */
const LINGER_MS = 1_000;

export interface CommandOutcome {
  readonly output: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  /** Background processes kept the output open after the shell exited and were stopped. */
  readonly reapedBackground: boolean;
  /** Processes the command left running in the background (detached output, setsid), tracked until the turn ends. */
  readonly background: readonly TaggedProcess[];
}

export interface CommandEnv {
  readonly tracker: CommandTracker;
  /** Values that must not reach a command: any variable containing one is left out of its environment. */
  readonly secrets: readonly string[];
}

/** Shorter values would match by accident (and are no real key). */
const MIN_SECRET_CHARS = 8;

/** The environment a command gets: Capsule's own minus anything carrying a secret it holds, plus the pager settings and the tag. */
function commandEnvironment(base: NodeJS.ProcessEnv, secrets: readonly string[], tag: string): NodeJS.ProcessEnv {
  const keys = secrets.filter((s) => s.length >= MIN_SECRET_CHARS);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || k === COMMAND_TAG_VAR || keys.some((s) => v.includes(s))) continue;
    env[k] = v;
  }
  // Nothing may wait for a keypress: there is no terminal to answer it.
  return { ...env, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', [COMMAND_TAG_VAR]: tag };
}

/**
 * Runs `command` with bash -c; never rejects except when bash itself cannot be started. A timeout or abort stops the
 * group and every tagged process (setsid children included); processes still running after a normal end are returned
 * as `background` and stay tracked, for the turn's end to stop.
 */
export async function executeCommand(
  command: string,
  cwd: string,
  timeoutMs: number,
  limits: ToolLimits,
  signal: AbortSignal,
  cenv: CommandEnv,
): Promise<CommandOutcome> {
  const tag = newCommandTag();
  // Noted before the shell starts: a CLI killed from here on still leaves the command for its next run to find.
  cenv.tracker.begin(tag.id);
  let o: CommandOutcome;
  try {
    o = await runShell(command, cwd, timeoutMs, limits, signal, commandEnvironment(process.env, cenv.secrets, tag.value), (pgid) =>
      cenv.tracker.add(pgid, tag.id),
    );
  } catch (err) {
    // bash did not start: nothing of the command runs, and the journal must not keep it.
    cenv.tracker.forget(tag.id);
    throw err;
  }
  if (o.timedOut || o.cancelled) {
    await cenv.tracker.stop(tag.id, KILL_GRACE_MS);
    return o;
  }
  const background = await cenv.tracker.settled(tag.id);
  if (background.length === 0) cenv.tracker.forget(tag.id);
  return { ...o, background };
}

function runShell(
  command: string,
  cwd: string,
  timeoutMs: number,
  limits: ToolLimits,
  signal: AbortSignal,
  env: NodeJS.ProcessEnv,
  started: (pgid: number) => void,
): Promise<CommandOutcome> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['-c', command], {
      cwd,
      detached: true, // its own process group, so killing -pid reaches every child it spawns
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    if (child.pid !== undefined) started(child.pid);
    const out = new HeadTailBuffer(limits.outputHeadBytes, limits.outputTailBytes);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => out.push(b));
    let timedOut = false;
    let cancelled = false;
    let reapedBackground = false;
    let stopping = false;
    let done = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const timers: NodeJS.Timeout[] = [];

    const killGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      killGroup('SIGTERM');
      timers.push(setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS));
    };
    const onAbort = (): void => {
      cancelled = true;
      stop();
    };
    const finish = (): void => {
      if (done) return;
      done = true;
      timers.forEach(clearTimeout);
      signal.removeEventListener('abort', onAbort);
      resolvePromise({ output: out.text(), code: exit?.code ?? null, signal: exit?.signal ?? null, timedOut, cancelled, reapedBackground, background: [] });
    };

    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
      }, timeoutMs),
    );
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });

    child.on('error', (err) => {
      timers.forEach(clearTimeout);
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('exit', (code, sig) => {
      exit = { code, signal: sig };
      timers.push(
        setTimeout(() => {
          reapedBackground = !timedOut && !cancelled;
          killGroup('SIGKILL');
          child.stdout.destroy();
          child.stderr.destroy();
          finish();
        }, LINGER_MS),
      );
    });
    child.on('close', finish);
  });
}

function statusLine(o: CommandOutcome, timeoutMs: number): string {
  if (o.cancelled) return 'cancelled: the command was stopped before it finished';
  if (o.timedOut) return `killed after timeout (${timeoutMs} ms)`;
  if (o.code !== null) return `exit code ${o.code}`;
  return `killed by signal ${o.signal ?? 'unknown'}`;
}

/** A command for a one-line title: the first line, cut short. */
function oneLine(command: string): string {
  const first = command.split('\n')[0] ?? '';
  const cut = first.length > 80 ? `${first.slice(0, 80)}…` : first;
  return command.includes('\n') ? `${cut} …` : cut;
}

export async function runCommandTool(ctx: ToolContext, argsJson: string, signal: AbortSignal): Promise<ToolResult> {
  const { limits } = ctx;
  const args = parseToolArgs(TOOL_NAMES.runCommand, argsJson, runCommandArgs(limits), runCommandHints(limits));
  if (!ctx.trusted()) {
    throw new ToolError('run_command is disabled because this workspace is not trusted. Ask the user to trust the workspace to allow commands.');
  }
  const cwd = await resolveWorkspacePath(ctx.roots, args.cwd ?? '.');
  if (!cwd.exists || !(await stat(cwd.real)).isDirectory()) throw new ToolError(`cwd "${cwd.display}" is not an existing folder in the workspace.`);
  const timeoutMs = args.timeoutMs ?? limits.commandDefaultTimeoutMs;
  let decision: ApprovalDecision;
  const where = cwd.display === '.' ? 'the workspace root' : cwd.display;
  try {
    decision = decisionOf(
      await ctx.approve(
        { kind: 'command', title: `Run \`${oneLine(args.command)}\` in ${where}`, detail: args.command, command: args.command, cwd: where },
        signal,
      ),
    );
  } catch (err) {
    if (signal.aborted) throw new ToolError('Cancelled: the command was not run.');
    throw err;
  }
  if (signal.aborted) throw new ToolError('Cancelled: the command was not run.');
  if (!decision.approved) {
    const said = feedbackSentence(decision);
    const declined = toolError(
      said === ''
        ? 'The user declined to run this command; it was not run. Do not retry it; ask the user how to proceed.'
        : `The user declined to run this command; it was not run.${said}`,
    );
    return { ...declined, effects: effects({ source: 'measured', denied: true, failed: true, exitCode: null }) };
  }
  // With checkpoints, the checkpoint's scans are the effect measurement too: one scan before, one after.
  const probe = ctx.capture === undefined ? await startCommandProbe(ctx.roots, cwd.real) : await checkpointProbe(ctx.capture, ctx.roots);
  const started = Date.now();
  let o: CommandOutcome;
  try {
    o = await executeCommand(args.command, cwd.real, timeoutMs, limits, signal, { tracker: ctx.commands, secrets: ctx.secrets() });
  } catch (err) {
    return { ...toolError(`The command could not be started: ${errorMessage(err)}`), effects: effects({ source: 'measured', failed: true, exitCode: null }) };
  }
  const durationMs = Date.now() - started;
  const files = await probe.finish();
  const parts = [o.output === '' ? '(no output)' : o.output.replace(/\n$/, '')];
  if (o.reapedBackground) parts.push('[background processes that kept the output open were stopped]');
  if (o.background.length > 0) {
    const pids = o.background.map((p) => p.pid).join(', ');
    parts.push(
      ctx.keepBackground
        ? `[still running in the background: pid ${pids}; kept after the turn ends]`
        : `[still running in the background: pid ${pids}; stopped when this turn ends]`,
    );
  }
  parts.push(statusLine(o, timeoutMs));
  const isError = o.cancelled || o.timedOut || o.code !== 0;
  return { isError, content: parts.join('\n'), effects: commandEffects(o, files, durationMs, isError) };
}
