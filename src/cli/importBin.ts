// `capsule import …` as one CommonJS file (dist/cli-import.js): the launcher runs it directly with its code cache, so an import reads one file instead of the ES-module entry and its chunks (docs/performance.md).
import { importCommand } from './commands/import.js';
import { runOneFileCommand } from './oneFileCommand.js';
import { IMPORT_USAGE } from './usage.js';

runOneFileCommand(IMPORT_USAGE, importCommand);
