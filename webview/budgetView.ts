// The header's budget: headline figure, the meter, limits, and (expandable) the category legend and every `/budget` field (docs/behaviour.md#observability).
import type { BudgetView } from '../src/protocol/messages.js';
import { button, el } from './dom.js';
import { fire } from './errorCard.js';
import { age, fullTokens, percent, shortTokens } from '../src/protocol/format.js';
import { renderLegend, renderMeter } from './meter.js';

const SOURCE_LABELS: Readonly<Record<BudgetView['source'], string>> = {
  provider_usage: 'provider usage',
  estimated: 'estimated',
};

function row(label: string, value: string): Node[] {
  return [el('dt', { text: label }), el('dd', { text: value })];
}

function lastCapsuleText(b: BudgetView): string {
  const c = b.lastCapsule;
  if (!c) return 'none';
  return `${age(c.ageMs)} (${fullTokens(c.tokens)} tokens, ${c.checkpointId}${c.quality === 'degraded' ? ', degraded' : ''})`;
}

/** The `/budget` fields in the order docs/behaviour.md#observability lists them, plus the model figures they derive from. */
export function budgetRows(b: BudgetView): readonly (readonly [string, string])[] {
  return [
    ['Effective tokens', fullTokens(b.effectiveTokens)],
    ['Measurement source', SOURCE_LABELS[b.source]],
    ['Soft limit', fullTokens(b.softLimit)],
    ['Hard limit', fullTokens(b.hardLimit)],
    ['Safety reserve', fullTokens(b.safetyReserveTokens)],
    ['Keep recent', fullTokens(b.keepRecentTokens)],
    ['Capsules', String(b.capsules)],
    ['Messages', String(b.messages)],
    ['Turns', String(b.turns)],
    ['Last capsule', lastCapsuleText(b)],
    ['Savings ratio', `${b.savingsRatio.toFixed(2)} (${percent(b.savingsRatio)})`],
    ['Reclaimable', fullTokens(b.reclaimableTokens)],
    ['Auto-compact', b.autoCompact ? 'ON' : 'OFF'],
    ['Next trigger est.', b.nextTrigger],
    ['Model', b.model],
    ['Context window', b.windowSource === 'default' ? `unknown (assuming ${fullTokens(b.contextWindow)}): set capsule.model.contextWindow` : fullTokens(b.contextWindow)],
    ['Max output', fullTokens(b.maxOutputTokens)],
  ];
}

/** Every `/budget` field, one per line: the meter's tooltip. */
export function budgetTooltip(b: BudgetView): string {
  return budgetRows(b)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

/** The window, or (nobody reported one) a button that says it is unknown and opens its setting: never a figure passed off as known. */
function windowFigure(b: BudgetView): Node {
  if (b.windowSource !== 'default') return document.createTextNode(`window ${shortTokens(b.contextWindow)}`);
  const set = button({ icon: 'warning', text: 'window unknown — set it', label: `Context window unknown: Capsule assumes ${fullTokens(b.contextWindow)} tokens until you set it. Open the setting.`, className: 'window-unknown' });
  set.addEventListener('click', () => fire(set, { action: 'settings', target: 'window' }));
  return set;
}

/** The header's budget line: figure, share of the hard limit, measurement source, and the meter; hovering shows every field. */
export function renderBudgetSummary(b: BudgetView): HTMLElement {
  const ratio = b.hardLimit > 0 ? b.effectiveTokens / b.hardLimit : 0;
  const headline = el('div', { className: 'headline' }, [
    el('span', { className: 'figure', text: `${fullTokens(b.effectiveTokens)} / ${fullTokens(b.hardLimit)}` }),
    el('span', { className: 'pct', text: percent(ratio) }),
    el('span', {
      className: `badge source-${b.source}`,
      text: SOURCE_LABELS[b.source],
      attrs: { title: b.source === 'provider_usage' ? 'Calibrated from the tokens the provider reported' : 'Counted locally with the tokenizer (+5% margin)' },
    }),
  ]);
  const limits = el('div', { className: 'limits', text: `soft ${fullTokens(b.softLimit)} · hard ${fullTokens(b.hardLimit)} · ` }, [windowFigure(b)]);
  return el('section', { className: 'budget', attrs: { 'aria-label': 'Context budget', title: budgetTooltip(b) } }, [headline, renderMeter(b), limits]);
}

/** The expandable part: limits, the category legend and the `/budget` fields as a list. */
export function renderBudgetDetails(b: BudgetView, open: boolean, onToggle: (open: boolean) => void): HTMLElement {
  const list = el('dl', { className: 'fields' }, budgetRows(b).flatMap(([k, v]) => row(k, v)));
  const details = el('details', { className: 'budget-details' }, [el('summary', { text: 'Budget details' }), renderLegend(b), list]);
  details.open = open;
  details.addEventListener('toggle', () => onToggle(details.open));
  return details;
}
