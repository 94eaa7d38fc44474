// The CLI's restart without the API key (docs/user/cli.md#api-key): the launcher starts a relay, the relay the real CLI, and the key goes over fd 3. Loaded only by a run that restarts or was restarted (child_process and net cost every other command their load time).
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { HANDOVER_VAR, keepHandedKeys, LAUNCH_VAR, MIN_KEY_CHARS } from './keyHandover.js';

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

/**
 * Signals sent to the launcher alone (`kill`, `timeout`, a test harness) must reach the CLI. The terminal's Ctrl-C
 * reaches both (one process group), so the CLI may see SIGINT twice: its handlers take a repeat as the same request.
 */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'] as const;

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
  if (typeof keys === 'object' && keys !== null) keepHandedKeys(keys as Record<string, unknown>);
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
