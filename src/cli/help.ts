// The overview `capsule --help` prints and each command's usage and description: small, so the launcher prints help without loading the engine.
import {
  BUDGET_USAGE,
  CHAT_USAGE,
  COMPACT_USAGE,
  EXPORT_USAGE,
  IMPORT_USAGE,
  LIMITS_USAGE,
  LOAD_USAGE,
  MCP_USAGE,
  REWIND_USAGE,
  SHOW_USAGE,
  UNDO_COMPACTION_USAGE,
  VERIFY_USAGE,
} from './usage.js';

export const COMMAND_HELP = {
  budget: { usage: BUDGET_USAGE, about: 'context budget of a session (the /budget figures)' },
  verify: { usage: VERIFY_USAGE, about: 'check a session file; exits 1 when it finds problems' },
  import: { usage: IMPORT_USAGE, about: 'turn OpenAI chat-completions messages into a session' },
  compact: { usage: COMPACT_USAGE, about: 'compact a session now (same engine as the extension) and print the result line' },
  rewind: {
    usage: REWIND_USAGE,
    about: "rewind to a checkpoint or message (the chat's Rewind): the conversation, with --files also the files; nothing is deleted",
  },
  'undo-compaction': { usage: UNDO_COMPACTION_USAGE, about: 'undo (or --redo) one compaction, keeping later turns; refused when the result would not fit' },
  show: { usage: SHOW_USAGE, about: 'print the capsule in force on the active branch, or the one made at a checkpoint' },
  export: { usage: EXPORT_USAGE, about: "write a checkpoint's capsule to a portable .capsule.md file" },
  load: { usage: LOAD_USAGE, about: 'load a .capsule.md file into a new or existing session' },
  limits: { usage: LIMITS_USAGE, about: "list the context windows learned from providers' overflow errors, or forget them" },
  chat: { usage: CHAT_USAGE, about: 'run one agent turn on a session against an OpenAI-compatible endpoint (tool actions need --yes)' },
  mcp: { usage: MCP_USAGE, about: 'list the configured MCP servers (status, tools, schema tokens) or call one tool' },
} as const satisfies Readonly<Record<string, { readonly usage: string; readonly about: string }>>;

export type CommandName = keyof typeof COMMAND_HELP;
export const COMMAND_NAMES = Object.keys(COMMAND_HELP) as readonly CommandName[];

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMAND_HELP, name);
}

export function help(): string {
  const lines = ['capsule — context-capsule sessions from the command line', '', 'Commands:'];
  for (const name of COMMAND_NAMES) lines.push(`  ${COMMAND_HELP[name].usage}`, `      ${COMMAND_HELP[name].about}`);
  return lines.join('\n');
}

/** The calls that print the overview: none, `help`, or `--help` alone. Anything else goes to main(), which also knows these. */
export function isOverviewHelp(args: readonly string[]): boolean {
  return args.length === 0 || args[0] === 'help' || (args.length === 1 && args[0] === '--help');
}
