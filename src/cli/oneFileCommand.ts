// What a command bundled as one CommonJS file does around its work (budgetBin.ts, importBin.ts; the launcher runs each with its code cache): stdout written as Node writes it to a file, the handed key read first, one line and an exit code for an error. As bin.ts + main.ts would, for that command only.
import { fstatSync, statSync, writeSync } from 'node:fs';
import { parseCli, type ParsedCli } from './args.js';
import { fail, quietOnClosedPipe } from './exitPaths.js';
import { HANDOVER_VAR } from './keyHandover.js';
import { visible } from './terminalText.js';
import { setLockHolderName } from '../node/lockHolder.js';

/**
 * Whether fd 1 is a file or /dev/null, which Node's process.stdout writes with fs.writeSync: then so does the command,
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

/** main() for argv whose command is this one: its usage for --help, else the command; every line through visible(). */
async function commandMain(argv: readonly string[], usage: string, command: (cli: ParsedCli, out: (s: string) => void) => Promise<number>): Promise<number> {
  const write = stdoutWriter();
  const out = (s: string): void => write(`${visible(s)}\n`);
  const cli = parseCli(argv);
  if (cli.flags.help === true) {
    out(usage);
    return 0;
  }
  return command(cli, out);
}

/**
 * Runs a command that starts no process, so a key in the environment never restarts it (keyHandover.ts SPAWN_FREE);
 * a run that was restarted anyway reads the handed key first, as bin.ts does.
 */
export function runOneFileCommand(usage: string, command: (cli: ParsedCli, out: (s: string) => void) => Promise<number>): void {
  setLockHolderName('the capsule CLI');
  const received = process.env[HANDOVER_VAR] === '3' ? import('./keyRelay.js').then((relay) => relay.receiveKey()) : Promise.resolve(false);
  received
    .then(() => commandMain(process.argv.slice(2), usage, command))
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
}
