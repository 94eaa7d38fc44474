// The `capsule` executable (dist/cli.js, CommonJS): prints the overview help itself, hands every other call to the ES-module entry (bin.ts → dist/cli-main.mjs).
import { help, isOverviewHelp } from './help.js';
import { visible } from './terminalText.js';

/** Where the built entry sits beside this file; a variable, so the bundler leaves the import to Node at run time. */
const ENTRY = './cli-main.mjs';

const args = process.argv.slice(2);
if (isOverviewHelp(args)) {
  process.stdout.write(`${visible(help())}\n`);
  process.exitCode = args.length === 0 ? 2 : 0;
} else {
  import(ENTRY).catch((e: unknown) => {
    process.stderr.write(`capsule: cannot load ${ENTRY} beside ${__filename} (${e instanceof Error ? e.message : String(e)}); rebuild with npm run build\n`);
    process.exitCode = 1;
  });
}
