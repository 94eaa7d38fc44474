// `capsule budget …` as one CommonJS file (dist/cli-budget.js): the launcher runs it directly, so the read-only budget reads one file instead of the ES-module entry and its chunks (docs/performance.md). Runs as bin.ts + main.ts would for `budget`.
import { fstatSync, statSync, writeSync } from 'node:fs';
import { parseCli } from './args.js';
import { budgetCommand } from './commands/budgetCommand.js';
import { fail, quietOnClosedPipe } from './exitPaths.js';
import { HANDOVER_VAR } from './keyHandover.js';
import { visible } from './terminalText.js';
import { BUDGET_USAGE } from './usage.js';
import { setLockHolderName } from '../node/lockHolder.js';

/**
 * Whether fd 1 is a file or /dev/null, which Node's process.stdout writes with fs.writeSync: then so does the budget,
 * without building the stream (which loads Node's stream modules). A terminal or a pipe goes through process.stdout.
 */
function stdoutIsFile(): boolean {
  try {
    const st = fstatSync(1);
    return st.isFile() || (st.isCharacterDevice() && st.rdev === statSync('/dev/null').rdev);
  } catch {
    return false;
  }
}

function stdoutWriter(): (text: string) => void {
  if (stdoutIsFile()) return (text) => void writeSync(1, text);
  quietOnClosedPipe(process.stdout);
  return (text) => void process.stdout.write(text);
}

/** main() for argv whose command is `budget`: its usage for --help, else the command; every line through visible(). */
async function budgetMain(argv: readonly string[]): Promise<number> {
  const write = stdoutWriter();
  const out = (s: string): void => write(`${visible(s)}\n`);
  const cli = parseCli(argv);
  if (cli.flags.help === true) {
    out(BUDGET_USAGE);
    return 0;
  }
  return budgetCommand(cli, out);
}

// `budget` starts no process, so a key in the environment never restarts it (keyHandover.ts SPAWN_FREE); a run that
// was restarted anyway reads the handed key first, as bin.ts does.
setLockHolderName('the capsule CLI');
const received = process.env[HANDOVER_VAR] === '3' ? import('./keyRelay.js').then((relay) => relay.receiveKey()) : Promise.resolve(false);
received
  .then(() => budgetMain(process.argv.slice(2)))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      // stderr is written only here, so its closed-pipe guard is installed only here.
      quietOnClosedPipe(process.stderr);
      process.exitCode = fail(e);
    },
  );
