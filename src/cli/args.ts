// Command-line parsing for `capsule`: a thin wrapper over node:util parseArgs with one-line errors.
import { parseArgs } from 'node:util';
import { CliError } from './errors.js';

export { CliError } from './errors.js';

/** Every flag the CLI knows; unknown flags are rejected so a typo never silently does the default. */
export const CLI_OPTIONS = {
  model: { type: 'string' },
  window: { type: 'string' },
  'max-output': { type: 'string' },
  json: { type: 'boolean' },
  out: { type: 'string', short: 'o' },
  trigger: { type: 'string' },
  fallback: { type: 'boolean' },
  'base-url': { type: 'string' },
  'api-key-env': { type: 'string' },
  session: { type: 'string' },
  workspace: { type: 'string' },
  yes: { type: 'boolean' },
  'keep-background': { type: 'boolean' },
  checkpoint: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  provider: { type: 'string' },
  title: { type: 'string' },
  force: { type: 'boolean' },
  'new-session': { type: 'string' },
  into: { type: 'string' },
  anyway: { type: 'boolean' },
  focus: { type: 'string' },
  files: { type: 'boolean' },
  'files-only': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'up-to': { type: 'string' },
  redo: { type: 'boolean' },
  set: { type: 'string', multiple: true },
  'no-auto-compact': { type: 'boolean' },
  from: { type: 'string' },
  retention: { type: 'boolean' },
  retry: { type: 'boolean' },
  all: { type: 'boolean' },
  mode: { type: 'string' },
  image: { type: 'string', multiple: true },
  vision: { type: 'boolean' },
  'no-instructions': { type: 'boolean' },
  'mcp-config': { type: 'string', multiple: true },
  'no-mcp': { type: 'boolean' },
  'approve-mcp': { type: 'boolean' },
} as const;

export type Flags = Record<string, string | boolean | readonly string[]>;

export interface ParsedCli {
  /** The first positional ('' when there is none, e.g. `capsule --help`). */
  command: string;
  /** The positionals after the command. */
  positionals: string[];
  /** Long flag names without dashes (`-o` is `out`, `-h` is `help`). */
  flags: Flags;
}

/** Parses argv (without the node and script paths); throws CliError with one clear line on bad input. */
export function parseCli(argv: readonly string[]): ParsedCli {
  try {
    const parsed = parseArgs({ args: [...argv], options: CLI_OPTIONS, allowPositionals: true, strict: true });
    const flags: Flags = {};
    for (const [name, value] of Object.entries(parsed.values)) {
      if (typeof value === 'string' || typeof value === 'boolean') flags[name] = value;
      else if (Array.isArray(value)) flags[name] = value.filter((v): v is string => typeof v === 'string');
    }
    const [command = '', ...positionals] = parsed.positionals;
    return { command, positionals, flags };
  } catch (e) {
    throw new CliError(describeParseError(e));
  }
}

/** A positive integer flag, or undefined when absent. */
export function intFlag(flags: Flags, name: string): number | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value.trim() : '';
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new CliError(`--${name} must be a positive integer (got ${typeof value === 'string' ? `'${value}'` : 'no value'})`);
  }
  return n;
}

/** node's messages span several lines and suggest `--` tricks; the CLI wants one line naming the flag. */
function describeParseError(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const code = typeof e === 'object' && e !== null && 'code' in e ? e.code : undefined;
  const option = /Option '(-{1,2}[^' ,]+)/.exec(message)?.[1] ?? /Unknown option '([^']+)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option '${option}' (run 'capsule --help' for the list)`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    if (message.includes('does not take an argument')) return `${option} does not take a value`;
    if (message.includes('ambiguous')) return `${option} needs a value (for a value starting with '-', write ${option}=VALUE)`;
    return `${option} needs a value`;
  }
  return message.split('\n', 1)[0] ?? message;
}
