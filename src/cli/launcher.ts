// The `capsule` executable (dist/cli.js, CommonJS): prints the overview help itself, runs `capsule budget` and `capsule import` from their own CommonJS bundles (budgetBin.ts → dist/cli-budget.js, importBin.ts → dist/cli-import.js) and hands every other call to the ES-module entry (bin.ts → dist/cli-main.mjs).
import { join } from 'node:path';
import { help, isOverviewHelp } from './help.js';
import { visible } from './terminalText.js';

/** Where the built entries sit beside this file; variables, so the bundler leaves the loads to Node at run time. */
const ENTRY = './cli-main.mjs';
/**
 * Commands run from one CommonJS file with its code cache, no ES-module loader (docs/performance.md): the read-only
 * budget, which scripts run most, and the import, whose start is a fixed cost of every import.
 */
const ONE_FILE: Readonly<Record<string, string>> = { budget: './cli-budget.js', import: './cli-import.js' };

/**
 * Node's own `import()`, out of the bundler's reach: this build turns `import()` into `require()` (scripts/cliBuild.mjs,
 * for the budget bundle), and the ES-module entry can only be imported. Resolved against this file, as `import()` here is.
 */
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

function cannotLoad(file: string, e: unknown): void {
  process.stderr.write(`capsule: cannot load ${file} beside ${__filename} (${e instanceof Error ? e.message : String(e)}); rebuild with npm run build\n`);
  process.exitCode = 1;
}

const args = process.argv.slice(2);
if (isOverviewHelp(args)) {
  process.stdout.write(`${visible(help())}\n`);
  process.exitCode = args.length === 0 ? 2 : 0;
} else if (args[0] !== undefined && Object.hasOwn(ONE_FILE, args[0])) {
  const file = ONE_FILE[args[0]] ?? '';
  import('./codeCache.js').then((cache) => cache.runBundle(join(__dirname, file))).catch((e: unknown) => cannotLoad(file, e));
} else {
  importModule(ENTRY).catch((e: unknown) => cannotLoad(ENTRY, e));
}
