// The /budget text block (docs/behaviour.md#observability), laid out like the seed's "Context Stats" example.
import type { Budget } from './budget.js';
import { formatAge, formatTokens } from './figures.js';
import { windowText } from './modelLimits.js';

export { formatTokens };

const LABEL_WIDTH = 21;

function line(label: string, value: string): string {
  return `  ${`${label}:`.padEnd(LABEL_WIDTH)}${value}`;
}

/** Token figures right-aligned in a 6-wide column, small counts in a 2-wide one, as in the seed. */
const tok = (n: number): string => formatTokens(n).padStart(6);
const cnt = (n: number): string => String(n).padStart(2);

/** "auto: 6,144" for a value derived from the window, the plain figure for one the user set. */
function setting(b: Budget, key: string, n: number): string {
  return b.derived?.includes(key) === true ? `${tok(n)} (auto: ${formatTokens(n)})` : tok(n);
}

/** One row of the budget: a label and its value, as /budget, the CLI and the status-bar tooltip show it. */
export type BudgetRow = readonly [label: string, value: string];

function ratio(r: number): string {
  return `${r.toFixed(2)} (${Math.round(r * 100)}%)`;
}

/** The seed's "Context Stats" rows, in its order (docs/behaviour.md#observability). */
function contextStatsRows(b: Budget): BudgetRow[] {
  const last = b.lastCapsule
    ? `${formatAge(b.lastCapsule.ageMs)} (${formatTokens(b.lastCapsule.tokens)} tokens${b.lastCapsule.quality === 'degraded' ? ', degraded' : ''})`
    : 'none';
  return [
    ['Effective tokens', tok(b.effectiveTokens)],
    ['Measurement source', b.source],
    ['Soft limit', b.derived?.includes('minTokensForAutoCompact') === true ? `${tok(b.softLimit)} (auto)` : tok(b.softLimit)],
    ['Hard limit', tok(b.hardLimit)],
    ['Safety reserve', setting(b, 'safetyReserveTokens', b.safetyReserveTokens)],
    ['Keep recent', setting(b, 'keepRecentTokens', b.keepRecentTokens)],
    ['Capsules', cnt(b.capsules)],
    ['Messages', cnt(b.messages)],
    ['Turns', cnt(b.turns)],
    ['Last capsule', last],
    ['Savings ratio', ratio(b.savingsRatio)],
    ['Auto-compact', b.autoCompact ? 'ON' : 'OFF'],
    ['Next trigger est.', b.nextTrigger],
  ];
}

/**
 * Where the next request's tokens go, category by category, and what is left below the hard limit: the same
 * categories as the meter. The safety reserve and the reserved output lie outside the hard limit.
 */
function categoryRows(b: Budget): BudgetRow[] {
  const c = b.categories;
  const instr = b.instructions ?? [];
  const total = instr.reduce((n, f) => n + f.tokens, 0);
  return [
    ['System prompt', tok(c.system)],
    // Part of the system prompt, shown per file so the user sees what to trim (docs/user/instructions.md).
    ...(instr.length === 0
      ? []
      : [['  instructions', `${tok(total)} (${instr.map((f) => `${f.label.replace(/ \(.*$/, '')} ${formatTokens(f.tokens)}`).join(', ')})`] as const]),
    ['Tool schemas', tok(c.tools)],
    ['Capsule', tok(c.capsule)],
    ['Recent messages', tok(c.messages)],
    ['Tool results', tok(c.toolResults)],
    ['Free', `${tok(Math.max(0, b.hardLimit - b.effectiveTokens))} (to the hard limit)`],
    ['Reserved output', tok(c.reservedOutput)],
  ];
}

/** Figures the seed's block does not list: the model, the share of the hard limit, the ROI gate, the last checkpoint. */
function extraRows(b: Budget): BudgetRow[] {
  return [
    ['Model', `${b.model} (${windowText(b)}, max output ${formatTokens(b.maxOutputTokens)})`],
    ['Of hard limit', `${b.percentOfHard.toFixed(1)}%`],
    ['Uncompacted', `${tok(b.fullHistoryTokens)} (the input without compaction)`],
    ['Reclaimable', `${tok(b.reclaimableTokens)} (${Math.round(b.reclaimableRatio * 100)}% of the input, beyond keep recent)`],
    ...(b.lastCapsule ? [['Last checkpoint', b.lastCapsule.checkpointId] as const] : []),
  ];
}

/** Every row of the budget in the order /budget prints them, in three groups; the status-bar tooltip shows the same. */
export function budgetRowGroups(b: Budget): { readonly stats: BudgetRow[]; readonly categories: BudgetRow[]; readonly extra: BudgetRow[] } {
  return { stats: contextStatsRows(b), categories: categoryRows(b), extra: extraRows(b) };
}

/** The /budget text: "Context Stats:", the seed's rows, then the categories and the extras (the chat draws it as one table). */
export function formatBudget(b: Budget): string {
  const g = budgetRowGroups(b);
  const lines = (rows: readonly BudgetRow[]): string[] => rows.map(([k, v]) => line(k, v));
  return ['Context Stats:', ...lines(g.stats), '', ...lines(g.categories), '', ...lines(g.extra)].join('\n');
}
