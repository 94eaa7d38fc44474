// A `capsule chat` process keeps V8's young generation at the size it starts with (docs/performance.md#cli-memory).
import { setFlagsFromString } from 'node:v8';
import { parseCli } from './args.js';

/**
 * V8 doubles its young generation, up to 32 MB on a 64-bit machine, each time enough of what it allocated survived a
 * minor collection, and keeps it: loading the chat's modules and indexing a large session are such bursts, and the
 * pages stay resident for the rest of the turn. A chat turn spends its time waiting for the model, so its process
 * keeps the young generation it started with (a growth factor of 1, read at every minor collection). Set first thing,
 * before the modules load; other commands (an import streams 100 MB through) keep V8's default. Only the CLI's own
 * process does this, never the extension host, which belongs to VS Code.
 */
export function keepYoungGenerationSmallFor(argv: readonly string[]): void {
  let command = '';
  try {
    command = parseCli(argv).command;
  } catch {
    return; // a usage error: main reports it
  }
  if (command === 'chat') setFlagsFromString('--semi-space-growth-factor=1');
}
