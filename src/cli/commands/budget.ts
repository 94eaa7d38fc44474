// `capsule budget <session.jsonl>`: the /budget figures of SPEC S15 for a session file.
import { DEFAULT_SYSTEM_PROMPT } from '../../engine/agent/systemPrompt.js';
import { computeBudget, formatBudget } from '../../engine/tokens/budget.js';
import { EntryTokenCache } from '../../engine/tokens/entryCache.js';
import { counterForModel } from '../../node/tokenCounter.js';
import type { ParsedCli } from '../args.js';
import { cliSettings, loadForReading, modelFromFlags } from '../session.js';

export const BUDGET_USAGE = 'capsule budget <session.jsonl> [--model M] [--window N] [--max-output N] [--json]';

export async function budgetCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const load = await loadForReading(cli.positionals[0], BUDGET_USAGE);
  const branch = load.tree.branch();
  const model = modelFromFlags(cli.flags, branch);
  const resolved = cliSettings(model);
  const budget = computeBudget({
    branch,
    defaultSystem: DEFAULT_SYSTEM_PROMPT,
    tools: [],
    model,
    provider: 'cli',
    resolved,
    now: Date.now(),
    cache: new EntryTokenCache(counterForModel(model.model)),
  });
  if (cli.flags.json === true) {
    out(JSON.stringify({ ...budget, modelSource: model.source, problems: load.problems.length, warning: resolved.warning ?? null }, null, 2));
  } else {
    out(formatBudget(budget));
    if (resolved.warning) out(`Warning: ${resolved.warning}`);
    if (load.problems.length > 0) out(`Note: ${load.problems.length} problem(s) while loading; run 'capsule verify' for details.`);
  }
  return 0;
}
