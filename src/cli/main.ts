// The `capsule` command: budget, verify, import, compact, rewind, show and chat over session files; errors are one line and a non-zero exit.
import { CliError, parseCli, type ParsedCli } from './args.js';
import {
  BUDGET_USAGE, CHAT_USAGE, COMPACT_USAGE, EXPORT_USAGE, IMPORT_USAGE, LIMITS_USAGE, LOAD_USAGE, MCP_USAGE, REWIND_USAGE, SHOW_USAGE, UNDO_COMPACTION_USAGE, VERIFY_USAGE,
} from './usage.js';
import { setLockHolderName } from '../node/sessionLock.js';
import { visible } from './terminalText.js';
import { keyVariables, launchWithoutKey, receiveKey } from './keyHandover.js';

type Command = (cli: ParsedCli, out: (s: string) => void) => Promise<number>;

/** Each command's module is loaded when it runs, so `--help` and a short command pay only for what they use. */
const lazy = <M>(load: () => Promise<M>, pick: (m: M) => Command): Command => async (cli, out) => pick(await load())(cli, out);

const COMMANDS: Readonly<Record<string, { run: Command; usage: string; about: string }>> = {
  budget: { run: lazy(() => import('./commands/budget.js'), (m) => m.budgetCommand), usage: BUDGET_USAGE, about: 'context budget of a session (the /budget figures)' },
  verify: { run: lazy(() => import('./commands/verify.js'), (m) => m.verifyCommand), usage: VERIFY_USAGE, about: 'check a session file; exits 1 when it finds problems' },
  import: { run: lazy(() => import('./commands/import.js'), (m) => m.importCommand), usage: IMPORT_USAGE, about: 'turn OpenAI chat-completions messages into a session' },
  compact: { run: lazy(() => import('./commands/compact.js'), (m) => m.compactCommand), usage: COMPACT_USAGE, about: 'compact a session now (same engine as the extension) and print the result line' },
  rewind: { run: lazy(() => import('./commands/rewind.js'), (m) => m.rewindCommand), usage: REWIND_USAGE, about: 'rewind to a checkpoint or message (the chat\'s Rewind): the conversation, with --files also the files; nothing is deleted' },
  'undo-compaction': { run: lazy(() => import('./commands/undoCompaction.js'), (m) => m.undoCompactionCommand), usage: UNDO_COMPACTION_USAGE, about: 'undo (or --redo) one compaction, keeping later turns; refused when the result would not fit' },
  show: { run: lazy(() => import('./commands/show.js'), (m) => m.showCommand), usage: SHOW_USAGE, about: 'print the capsule in force on the active branch, or the one made at a checkpoint' },
  export: { run: lazy(() => import('./commands/export.js'), (m) => m.exportCommand), usage: EXPORT_USAGE, about: 'write a checkpoint\'s capsule to a portable .capsule.md file' },
  load: { run: lazy(() => import('./commands/load.js'), (m) => m.loadCommand), usage: LOAD_USAGE, about: 'load a .capsule.md file into a new or existing session' },
  limits: { run: lazy(() => import('./commands/limits.js'), (m) => m.limitsCommand), usage: LIMITS_USAGE, about: 'list the context windows learned from providers\' overflow errors, or forget them' },
  chat: { run: lazy(() => import('./commands/chat.js'), (m) => m.chatCommand), usage: CHAT_USAGE, about: 'run one agent turn on a session against an OpenAI-compatible endpoint (tool actions need --yes)' },
  mcp: { run: lazy(() => import('./commands/mcp.js'), (m) => m.mcpCommand), usage: MCP_USAGE, about: 'list the configured MCP servers (status, tools, schema tokens) or call one tool' },
};

function help(): string {
  const lines = ['capsule — context-capsule sessions from the command line', '', 'Commands:'];
  for (const c of Object.values(COMMANDS)) lines.push(`  ${c.usage}`, `      ${c.about}`);
  return lines.join('\n');
}

/** Every line goes through visible(): a control character in anything printed (a file name, a capsule's text) is shown, not obeyed. */
export async function main(argv: readonly string[], out: (s: string) => void = (s) => process.stdout.write(`${visible(s)}\n`)): Promise<number> {
  const cli = parseCli(argv);
  if (cli.command === '' || cli.command === 'help' || (cli.flags.help === true && cli.command === '')) {
    out(help());
    return cli.command === '' && cli.flags.help !== true ? 2 : 0;
  }
  const command = COMMANDS[cli.command];
  if (!command) throw new CliError(`unknown command '${cli.command}' (commands: ${Object.keys(COMMANDS).join(', ')})`);
  if (cli.flags.help === true) {
    out(command.usage);
    return 0;
  }
  return command.run(cli, out);
}

function fail(e: unknown): number {
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`capsule: ${visible(message.split('\n')[0] ?? message)}\n`);
  if (process.env.CAPSULE_DEBUG && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  return e instanceof CliError ? e.exitCode : 1;
}

/** `capsule … | head`: the reader went away, which is how a pipe ends, not an error worth a stack trace. */
export function quietOnClosedPipe(stream: NodeJS.WriteStream, exit: (code: number) => void = (c) => process.exit(c)): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    else throw e;
  });
}

if (require.main === module) {
  // With an API key in the environment, this process only launches the real CLI without it (docs/user/cli.md#api-key).
  const keys = process.platform === 'win32' ? [] : keyVariables(process.argv.slice(2), process.env);
  if (keys.length > 0) launchWithoutKey(keys);
  else {
    setLockHolderName('the capsule CLI');
    quietOnClosedPipe(process.stdout);
    quietOnClosedPipe(process.stderr);
    receiveKey()
      .then(() => main(process.argv.slice(2)))
      .then(
        (code) => {
          process.exitCode = code;
        },
        (e: unknown) => {
          process.exitCode = fail(e);
        },
      );
  }
}
