// The context-usage meter (docs/behaviour.md#observability): stacked categories against the window, soft/hard markers, reserved output at the end.
import type { BudgetCategories, BudgetView } from '../src/protocol/messages.js';
import { el } from './dom.js';
import { fullTokens, percent, shortTokens } from '../src/protocol/format.js';

type ContentCategory = Exclude<keyof BudgetCategories, 'reservedOutput'>;

export const CATEGORY_LABELS: Readonly<Record<keyof BudgetCategories, string>> = {
  system: 'System',
  tools: 'Tools',
  capsule: 'Capsule',
  messages: 'Messages',
  toolResults: 'Tool results',
  reservedOutput: 'Reserved output',
};

const CONTENT: readonly ContentCategory[] = ['system', 'tools', 'capsule', 'messages', 'toolResults'];

/** Part of the effective figure not attributed to a category: the tokenizer margin or provider calibration. */
function unattributed(b: BudgetView): number {
  const sum = CONTENT.reduce((acc, k) => acc + b.categories[k], 0);
  return Math.max(0, b.effectiveTokens - sum);
}

/** Width in percent of `tokens` on a bar that spans the context window, clamped to the bar. */
function pct(tokens: number, scale: number): number {
  if (scale <= 0) return 0;
  return Math.min(100, Math.max(0, (tokens / scale) * 100));
}

function segment(className: string, left: number, width: number, title: string): HTMLElement {
  const s = el('div', { className: `seg ${className}`, attrs: { title } });
  s.style.left = `${left}%`;
  s.style.width = `${width}%`;
  return s;
}

function marker(className: string, at: number, title: string): HTMLElement {
  const m = el('div', { className: `marker ${className}`, attrs: { title } });
  m.style.left = `${at}%`;
  return m;
}

export function renderMeter(b: BudgetView): HTMLElement {
  const scale = b.contextWindow > 0 ? b.contextWindow : Math.max(1, b.hardLimit);
  const state = b.effectiveTokens > b.hardLimit ? 'over' : b.effectiveTokens >= b.softLimit ? 'soft' : 'ok';
  const bar = el('div', {
    className: `meter ${state}`,
    attrs: {
      role: 'meter',
      'aria-label': 'Context usage against the hard limit',
      'aria-valuemin': '0',
      'aria-valuemax': String(Math.max(0, b.hardLimit)),
      'aria-valuenow': String(Math.max(0, Math.min(b.effectiveTokens, Math.max(0, b.hardLimit)))),
      'aria-valuetext': `${fullTokens(b.effectiveTokens)} of ${fullTokens(b.hardLimit)} tokens (${percent(b.hardLimit > 0 ? b.effectiveTokens / b.hardLimit : 0)}), soft limit ${fullTokens(b.softLimit)}, source ${b.source}${b.windowSource === 'default' ? ', context window unknown (assumed)' : ''}`,
    },
  });

  // Reserved output and the safety reserve sit past the hard limit, at the end of the window.
  const reservedWidth = pct(b.categories.reservedOutput, scale);
  const reserveStart = pct(b.hardLimit, scale);
  bar.appendChild(segment('cat-safety', reserveStart, Math.max(0, 100 - reservedWidth - reserveStart), `Safety reserve ${fullTokens(b.safetyReserveTokens)}`));
  bar.appendChild(
    segment('cat-reservedOutput', 100 - reservedWidth, reservedWidth, `${CATEGORY_LABELS.reservedOutput} ${fullTokens(b.categories.reservedOutput)}`),
  );

  let left = 0;
  const parts: readonly (readonly [string, string, number])[] = [
    ...CONTENT.map((k) => [`cat-${k}`, CATEGORY_LABELS[k], b.categories[k]] as const),
    ['cat-margin', 'Margin / calibration', unattributed(b)] as const,
  ];
  for (const [cls, label, tokens] of parts) {
    const w = Math.min(pct(tokens, scale), 100 - left);
    if (w <= 0) continue;
    bar.appendChild(segment(cls, left, w, `${label} ${fullTokens(tokens)}`));
    left += w;
  }

  bar.appendChild(marker('soft', pct(b.softLimit, scale), `Soft limit ${fullTokens(b.softLimit)}`));
  bar.appendChild(marker('hard', pct(b.hardLimit, scale), `Hard limit ${fullTokens(b.hardLimit)}`));
  return bar;
}

export function renderLegend(b: BudgetView): HTMLElement {
  const items: Node[] = [];
  const keys: readonly (keyof BudgetCategories)[] = [...CONTENT, 'reservedOutput'];
  for (const k of keys) {
    items.push(
      el('li', {}, [
        el('span', { className: `swatch cat-${k}`, attrs: { 'aria-hidden': 'true' } }),
        el('span', { className: 'legend-label', text: CATEGORY_LABELS[k] }),
        el('span', { className: 'legend-value', text: shortTokens(b.categories[k]) }),
      ]),
    );
  }
  const margin = unattributed(b);
  if (margin > 0) {
    items.push(
      el('li', {}, [
        el('span', { className: 'swatch cat-margin', attrs: { 'aria-hidden': 'true' } }),
        el('span', { className: 'legend-label', text: 'Margin / calibration' }),
        el('span', { className: 'legend-value', text: shortTokens(margin) }),
      ]),
    );
  }
  // Instruction files are part of System; one line with the total, each file and its tokens in the tooltip.
  const instr = b.instructions ?? [];
  if (instr.length > 0) {
    const total = instr.reduce((n, f) => n + f.tokens, 0);
    items.push(
      el('li', { className: 'legend-instructions', attrs: { title: instr.map((f) => `${f.label}: ${fullTokens(f.tokens)}`).join('\n') } }, [
        el('span', { className: 'swatch cat-system', attrs: { 'aria-hidden': 'true' } }),
        el('span', { className: 'legend-label', text: `Instructions (${instr.length}, in System)` }),
        el('span', { className: 'legend-value', text: shortTokens(total) }),
      ]),
    );
  }
  return el('ul', { className: 'legend', attrs: { 'aria-label': 'Token use by category' } }, items);
}
