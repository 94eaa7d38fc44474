// Keeps the API key out of every environment a command could read: which runs need the restart without the key, and the key this run uses; the restart itself is keyRelay.ts, loaded only when it happens.
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
export const HANDOVER_VAR = 'CAPSULE_KEY_FD';
/** The relay's instructions: what to start. */
export const LAUNCH_VAR = 'CAPSULE_RELAY_LAUNCH';
/** Shorter values would match unrelated variables by accident (and are no real key). */
export const MIN_KEY_CHARS = 8;
/** Commands that start no process: with a key in the environment they run as they are, saving a restart. */
const SPAWN_FREE = new Set(['', 'help', 'budget', 'verify', 'import', 'show', 'export', 'load', 'undo-compaction', 'compact', 'limits']);

/** Keys the real CLI received from its launcher, by variable name. Empty in a CLI started without a key. */
const handed = new Map<string, string>();

/** The keys the launcher handed over (keyRelay.ts `receiveKey`). */
export function keepHandedKeys(keys: Readonly<Record<string, unknown>>): void {
  for (const [k, v] of Object.entries(keys)) if (typeof v === 'string') handed.set(k, v);
}

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
