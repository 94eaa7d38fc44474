// Keeps the API key out of every environment a command could read: the CLI re-starts itself without the key variable, detached from the process that holds it, and receives the key over a socket.
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { CliError, parseCli, type Flags } from './args.js';

/**
 * Why not simply delete the variable: /proc/<pid>/environ shows the environment a process was STARTED with, so a
 * process launched with the key keeps exposing it to every command of the same user while it lives, whatever it
 * deletes. Node 20 cannot exec itself in place. So the launcher (started with the key) starts a tiny relay without
 * the key, the relay starts the real CLI and exits at once: the real CLI is re-parented away from the launcher, so no
 * process above a command Capsule runs was ever started with the key. The key travels over the socket on fd 3; the
 * launcher stays as a waiter that relays signals one way and the exit status the other. The real CLI stays in the
 * launcher's process group, so the terminal's Ctrl-C and Ctrl-Z reach it directly, as they would reach one process.
 */

/** Set (to '3') in the real CLI's environment: read the key from fd 3. */
const HANDOVER_VAR = 'CAPSULE_KEY_FD';
/** The relay's instructions: what to start. */
const LAUNCH_VAR = 'CAPSULE_RELAY_LAUNCH';
/** Shorter values would match unrelated variables by accident (and are no real key). */
const MIN_KEY_CHARS = 8;
/** Commands that start no process: with a key in the environment they run as they are, saving a restart. */
const SPAWN_FREE = new Set(['', 'help', 'budget', 'verify', 'import', 'show', 'export', 'load', 'undo-compaction', 'compact', 'limits']);
/**
 * Signals sent to the launcher alone (`kill`, `timeout`, a test harness) must reach the CLI. The terminal's Ctrl-C
 * reaches both (one process group), so the CLI may see SIGINT twice: its handlers take a repeat as the same request.
 */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'] as const;

/**
 * The relay: starts the real CLI (not detached: same process group and terminal) with the same stdin, stdout, stderr
 * and the socket, then exits without waiting, which leaves the real CLI no descendant of the launcher.
 */
const RELAY = `
const { spawn } = require('node:child_process');
const launch = JSON.parse(process.env.${LAUNCH_VAR} || '{}');
delete process.env.${LAUNCH_VAR};
const child = spawn(launch.file, launch.args, { stdio: [0, 1, 2, 3], env: process.env });
child.once('spawn', () => process.exit(0));
child.once('error', (e) => { require('node:fs').writeSync(3, JSON.stringify({ error: e.message }) + '\\n'); process.exit(1); });
`;

/** Keys the real CLI received from its launcher, by variable name. Empty in a CLI started without a key. */
const handed = new Map<string, string>();

/**
 * The API key named by `--api-key-env` (else OPENAI_API_KEY): handed over by the launcher, else from the environment
 * (a CLI run in-process, e.g. by tests). The key never comes from a flag, so it stays out of shell history; local
 * servers need none ('').
 */
export function apiKeyFromFlags(flags: Flags): string {
  const named = typeof flags['api-key-env'] === 'string' ? flags['api-key-env'] : undefined;
  const value = (name: string): string | undefined => handed.get(name) ?? process.env[name];
  if (named !== undefined && value(named) === undefined) throw new CliError(`--api-key-env ${named}: that environment variable is not set`);
  return value(named ?? 'OPENAI_API_KEY') ?? '';
}

/** The variables that carry the key this run would use: `--api-key-env`'s, else OPENAI_API_KEY, when set. */
export function keyVariables(argv: readonly string[], env: NodeJS.ProcessEnv): readonly string[] {
  let named: string | undefined;
  let command = '';
  try {
    const cli = parseCli(argv);
    if (cli.flags.help === true) return [];
    command = cli.command;
    named = typeof cli.flags['api-key-env'] === 'string' ? cli.flags['api-key-env'] : undefined;
  } catch {
    return []; // a usage error: main reports it before anything runs
  }
  if (SPAWN_FREE.has(command)) return [];
  const name = named ?? 'OPENAI_API_KEY';
  const value = env[name];
  return value === undefined || value === '' ? [] : [name];
}

/** The launcher's environment minus the key variables and any other variable that contains a key's value. */
function environmentWithout(env: NodeJS.ProcessEnv, names: readonly string[]): NodeJS.ProcessEnv {
  const values = names.map((n) => env[n] ?? '').filter((v) => v.length >= MIN_KEY_CHARS);
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || names.includes(k) || k === HANDOVER_VAR || k === LAUNCH_VAR || values.some((s) => v.includes(s))) continue;
    out[k] = v;
  }
  return out;
}

/** Line-delimited JSON messages from a stream. */
function onMessages(stream: Readable, each: (m: Record<string, unknown>) => void): void {
  let buffer = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        const m = JSON.parse(line) as unknown;
        if (typeof m === 'object' && m !== null && !Array.isArray(m)) each(m as Record<string, unknown>);
      } catch {
        // not ours; ignore
      }
    }
  });
}

/** `--inspect` would make the restarted CLI fight the launcher for the debugger port. */
function execArgvForRestart(): string[] {
  return process.execArgv.filter((a) => !/^--(inspect|debug)/.test(a));
}

/**
 * Starts the real CLI without the key and waits for it: the launcher's whole job from here on. Resolves never; the
 * process exits with the real CLI's status (or re-raises the signal that ended it).
 */
export function launchWithoutKey(names: readonly string[]): void {
  const script = process.argv[1] ?? '';
  const env = environmentWithout(process.env, names);
  const keys: Record<string, string> = {};
  for (const n of names) keys[n] = process.env[n] ?? '';
  const relay = spawn(process.execPath, ['-e', RELAY], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: {
      ...env,
      [HANDOVER_VAR]: '3',
      [LAUNCH_VAR]: JSON.stringify({ file: process.execPath, args: [...execArgvForRestart(), script, ...process.argv.slice(2)] }),
    },
  });
  const channel = relay.stdio[3];
  if (!(channel instanceof Socket)) throw new Error('could not open the key channel');
  let pid: number | undefined;
  let exitCode: number | undefined;
  let failure: string | undefined;
  let lastSignal: NodeJS.Signals | undefined;
  const send = (sig: NodeJS.Signals): void => {
    if (pid === undefined) return;
    try {
      process.kill(pid, sig);
    } catch {
      // already gone: its exit status is on its way
    }
  };
  for (const sig of FORWARDED) {
    process.on(sig, () => {
      lastSignal = sig;
      send(sig);
    });
  }
  onMessages(channel, (m) => {
    if (typeof m.pid === 'number') {
      pid = m.pid;
      if (lastSignal !== undefined) send(lastSignal);
    }
    if (typeof m.exit === 'number') exitCode = m.exit;
    if (typeof m.error === 'string') failure = m.error;
  });
  channel.on('error', () => undefined);
  channel.on('close', () => {
    if (exitCode !== undefined) process.exit(exitCode);
    if (lastSignal !== undefined) {
      // It ended by the signal we passed on: end the same way, so the shell sees what it asked for.
      const sig = lastSignal;
      process.removeAllListeners(sig);
      process.kill(process.pid, sig);
      // A signal whose default does not end a Node process (SIGUSR1 starts the inspector): exit as the shell would report it.
      setTimeout(() => process.exit(128 + (constants.signals[sig] ?? 0)), 200);
      return;
    }
    process.stderr.write(
      `capsule: ${failure === undefined ? 'the CLI ended without an exit status' : `could not start the CLI without the key variable: ${failure}`}\n`,
    );
    process.exit(1);
  });
  relay.on('error', (e) => {
    failure = e.message;
  });
  // Not end(): the CLI takes the end of this stream as the launcher's death.
  channel.write(`${JSON.stringify({ keys })}\n`);
}

/**
 * In the real CLI: reads the key the launcher handed over (fd 3), reports this process's pid and later its exit
 * status, and stops (as on SIGTERM) if the launcher goes away. Resolves false when this CLI was not launched so.
 */
export async function receiveKey(): Promise<boolean> {
  if (process.env[HANDOVER_VAR] !== '3') return false;
  delete process.env[HANDOVER_VAR];
  const channel = new Socket({ fd: 3, readable: true, writable: true });
  const message = await new Promise<Record<string, unknown>>((resolve, reject) => {
    onMessages(channel, resolve);
    channel.once('error', reject);
    channel.once('end', () => reject(new Error('the launcher sent no key')));
  });
  const keys = message.keys;
  if (typeof keys === 'object' && keys !== null) for (const [k, v] of Object.entries(keys)) if (typeof v === 'string') handed.set(k, v);
  let exiting = false;
  process.once('exit', (code) => {
    exiting = true;
    try {
      writeSync(3, `${JSON.stringify({ exit: code })}\n`);
    } catch {
      // the launcher is gone; nobody waits for the status
    }
  });
  // The launcher was killed (SIGKILL can't be relayed): stop the way a SIGTERM would, cancelling the turn and its commands.
  const orphaned = (): void => {
    if (!exiting) process.kill(process.pid, 'SIGTERM');
  };
  channel.once('end', orphaned);
  channel.once('close', orphaned);
  channel.on('error', () => undefined);
  channel.write(`${JSON.stringify({ pid: process.pid })}\n`);
  channel.unref();
  return true;
}
