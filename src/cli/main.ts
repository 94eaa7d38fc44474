// The `capsule` command: budget, verify, import, compact, rewind, show and chat over session files; errors are one line and a non-zero exit.
import { CliError, parseCli, type ParsedCli } from './args.js';
import { COMMAND_HELP, COMMAND_NAMES, help, isCommandName, type CommandName } from './help.js';
import { visible } from './terminalText.js';

type Command = (cli: ParsedCli, out: (s: string) => void) => Promise<number>;

/** Each command's module is loaded when it runs, so `--help` and a short command pay only for what they use. */
const lazy =
  <M>(load: () => Promise<M>, pick: (m: M) => Command): Command =>
  async (cli, out) =>
    pick(await load())(cli, out);

const RUN: Readonly<Record<CommandName, Command>> = {
  budget: lazy(
    () => import('./commands/budgetCommand.js'),
    (m) => m.budgetCommand,
  ),
  verify: lazy(
    () => import('./commands/verifyCommand.js'),
    (m) => m.verifyCommand,
  ),
  import: lazy(
    () => import('./commands/import.js'),
    (m) => m.importCommand,
  ),
  compact: lazy(
    () => import('./commands/compact.js'),
    (m) => m.compactCommand,
  ),
  rewind: lazy(
    () => import('./commands/rewind.js'),
    (m) => m.rewindCommand,
  ),
  'undo-compaction': lazy(
    () => import('./commands/undoCompaction.js'),
    (m) => m.undoCompactionCommand,
  ),
  show: lazy(
    () => import('./commands/show.js'),
    (m) => m.showCommand,
  ),
  export: lazy(
    () => import('./commands/export.js'),
    (m) => m.exportCommand,
  ),
  load: lazy(
    () => import('./commands/load.js'),
    (m) => m.loadCommand,
  ),
  limits: lazy(
    () => import('./commands/limitsCommand.js'),
    (m) => m.limitsCommand,
  ),
  chat: lazy(
    () => import('./commands/chat.js'),
    (m) => m.chatCommand,
  ),
  mcp: lazy(
    () => import('./commands/mcp.js'),
    (m) => m.mcpCommand,
  ),
};

/** Every line goes through visible(): a control character in anything printed (a file name, a capsule's text) is shown, not obeyed. */
export async function main(argv: readonly string[], out: (s: string) => void = (s) => process.stdout.write(`${visible(s)}\n`)): Promise<number> {
  const cli = parseCli(argv);
  if (cli.command === '' || cli.command === 'help' || (cli.flags.help === true && cli.command === '')) {
    out(help());
    return cli.command === '' && cli.flags.help !== true ? 2 : 0;
  }
  if (!isCommandName(cli.command)) throw new CliError(`unknown command '${cli.command}' (commands: ${COMMAND_NAMES.join(', ')})`);
  if (cli.flags.help === true) {
    out(COMMAND_HELP[cli.command].usage);
    return 0;
  }
  return RUN[cli.command](cli, out);
}
