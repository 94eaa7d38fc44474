// The header's budget: a thin meter on the line, and under it on a click the figures, the category legend and every `/budget` field (docs/behaviour.md#observability).
import type { BudgetView } from '../src/protocol/messages.js';
import { button, el, icon } from './dom.js';
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
function budgetRows(b: BudgetView): readonly (readonly [string, string])[] {
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
    [
      'Context window',
      b.windowSource === 'default' ? `unknown (assuming ${fullTokens(b.contextWindow)}): set capsule.model.contextWindow` : fullTokens(b.contextWindow),
    ],
    ['Max output', fullTokens(b.maxOutputTokens)],
  ];
}

/** Every `/budget` field, one per line: the meter's tooltip. */
function budgetTooltip(b: BudgetView): string {
  return budgetRows(b)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}

/** The window, or (nobody reported one) a warning button that says it is unknown and opens its setting: never a figure passed off as known. */
export function windowFigure(b: BudgetView): Node {
  if (b.windowSource !== 'default')
    return el('span', {
      className: 'window-figure muted',
      text: shortTokens(b.contextWindow),
      attrs: { title: `Context window ${fullTokens(b.contextWindow)} tokens` },
    });
  const set = el(
    'button',
    {
      className: 'icon-button window-unknown',
      attrs: {
        type: 'button',
        'aria-label': 'window unknown — set it',
        title: `Context window unknown: Capsule assumes ${fullTokens(b.contextWindow)} tokens until you set it. Open the setting.`,
      },
    },
    [icon('warning')],
  );
  set.addEventListener('click', () => fire(set, { action: 'settings', target: 'window' }));
  return set;
}

/** The line's part of the budget: a thin meter and the share of the hard limit; the summary of the panel below, hovering shows every field. */
export function renderBudgetLine(b: BudgetView): HTMLElement {
  const ratio = b.hardLimit > 0 ? b.effectiveTokens / b.hardLimit : 0;
  return el(
    'summary',
    { className: 'budget', attrs: { title: budgetTooltip(b), 'aria-label': `Context ${percent(ratio)} of the hard limit: show the breakdown` } },
    [
      renderMeter(b),
      el('span', { className: 'line-figure', text: `${shortTokens(b.effectiveTokens)}/${shortTokens(b.hardLimit)}`, attrs: { 'aria-hidden': 'true' } }),
      el('span', { className: 'line-pct', text: percent(ratio), attrs: { 'aria-hidden': 'true' } }),
    ],
  );
}

/** What a click on the meter opens: the figures, the category legend, auto-compact, and every `/budget` field. */
export function renderBudgetPanel(b: BudgetView, autoCompact: HTMLElement | null, showTable: () => void): HTMLElement {
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
  const limits = el('div', {
    className: 'limits',
    text: `soft ${fullTokens(b.softLimit)} · hard ${fullTokens(b.hardLimit)} · window ${b.windowSource === 'default' ? `unknown (assuming ${fullTokens(b.contextWindow)})` : fullTokens(b.contextWindow)}`,
  });
  const table = button({ icon: 'table', text: 'Show in the chat', label: 'Show the context budget in the chat (/budget)' });
  table.addEventListener('click', showTable);
  const actions = el('div', { className: 'panel-actions' }, [...(autoCompact ? [autoCompact] : []), table]);
  const list = el(
    'dl',
    { className: 'fields' },
    budgetRows(b).flatMap(([k, v]) => row(k, v)),
  );
  return el('div', { className: 'budget-panel', attrs: { role: 'region', 'aria-label': 'Context budget' } }, [
    headline,
    limits,
    renderLegend(b),
    actions,
    list,
  ]);
}
