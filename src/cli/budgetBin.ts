// `capsule budget …` as one CommonJS file (dist/cli-budget.js): the launcher runs it directly, so the read-only budget reads one file instead of the ES-module entry and its chunks (docs/performance.md).
import { budgetCommand } from './commands/budgetCommand.js';
import { runOneFileCommand } from './oneFileCommand.js';
import { BUDGET_USAGE } from './usage.js';

runOneFileCommand(BUDGET_USAGE, budgetCommand);
