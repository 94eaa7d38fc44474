// `capsule budget <session.jsonl>`: the chat's /budget figures for a session file, from the same function as the chat's meter.
import { DEFAULT_SYSTEM_PROMPT } from '../../engine/agent/systemPrompt.js';
import { formatBudget } from '../../engine/tokens/budgetFormat.js';
import { budgetOf, TokenCaches } from '../../node/sessionBudget.js';
import type { ParsedCli } from '../args.js';
import { cliSettings, loadSessionForReading, modelFromFlags } from '../session.js';

export const BUDGET_USAGE = 'capsule budget <session.jsonl> [--model M] [--window N] [--max-output N] [--json]';

export async function budgetCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const load = await loadSessionForReading(cli.positionals[0], BUDGET_USAGE);
  const branch = load.tree.branch();
  const model = modelFromFlags(cli.flags, branch);
  const resolved = cliSettings(model);
  const budget = budgetOf(branch, { model, provider: 'cli', tools: [], resolved, cache: new TokenCaches().forModel(model.model), system: DEFAULT_SYSTEM_PROMPT }, Date.now());
  if (cli.flags.json === true) {
    out(JSON.stringify({ ...budget, modelSource: model.source, problems: load.problems.length, warning: resolved.warning ?? null }, null, 2));
  } else {
    out(formatBudget(budget));
    if (resolved.warning) out(`Warning: ${resolved.warning}`);
    if (load.problems.length > 0) out(`Note: ${load.problems.length} problem(s) while loading; run 'capsule verify' for details.`);
  }
  return 0;
}
