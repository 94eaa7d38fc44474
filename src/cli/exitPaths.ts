// How a `capsule` run ends: an error as one line and its exit code, and a closed pipe as a quiet exit. Its own module so the budget bundle (budgetBin.ts) shares them without main.ts and its table of every command.
import { CliError } from './errors.js';
import { visible } from './terminalText.js';

export function fail(e: unknown): number {
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
