// The compaction card (docs/behaviour.md#observability): reason in words, before/after by the meter's categories, reclaimed %, duration, quality, checkpoint.
import type { BudgetCategories, CompactionCard } from '../src/protocol/messages.js';
import { button, el, icon } from './dom.js';
import { duration, fullTokens, percent, shortTokens } from '../src/protocol/format.js';
import { CATEGORY_LABELS } from './meter.js';
import { reason, reclaimedRatio } from './words.js';

const ORDER: readonly (keyof BudgetCategories)[] = ['system', 'tools', 'capsule', 'messages', 'toolResults', 'reservedOutput'];

/** One stacked bar of categories, scaled so before and after share a ruler. */
function miniBar(label: string, c: BudgetCategories, total: number, scale: number): HTMLElement {
  const bar = el('div', { className: 'mini-bar', attrs: { 'aria-hidden': 'true' } });
  let left = 0;
  for (const k of ORDER) {
    const w = scale > 0 ? Math.min(100 - left, (c[k] / scale) * 100) : 0;
    if (w <= 0) continue;
    const seg = el('div', { className: `seg cat-${k}`, attrs: { title: `${CATEGORY_LABELS[k]} ${fullTokens(c[k])}` } });
    seg.style.left = `${left}%`;
    seg.style.width = `${w}%`;
    bar.appendChild(seg);
    left += w;
  }
  return el('div', { className: 'mini-row' }, [
    el('span', { className: 'mini-label', text: label }),
    bar,
    el('span', { className: 'mini-total', text: shortTokens(total) }),
  ]);
}

function categoryTable(card: CompactionCard): HTMLElement {
  const head = el('thead', {}, [
    el('tr', {}, [
      el('th', { text: 'Category', attrs: { scope: 'col' } }),
      el('th', { text: 'Before', attrs: { scope: 'col' } }),
      el('th', { text: 'After', attrs: { scope: 'col' } }),
    ]),
  ]);
  const rows = ORDER.map((k) =>
    el('tr', { attrs: { 'data-category': k } }, [
      el('th', { text: CATEGORY_LABELS[k], attrs: { scope: 'row' } }),
      el('td', { text: fullTokens(card.before[k]) }),
      el('td', { text: fullTokens(card.after[k]) }),
    ]),
  );
  const total = el('tr', { className: 'total' }, [
    el('th', { text: 'Effective', attrs: { scope: 'row' } }),
    el('td', { text: fullTokens(card.tokensBefore) }),
    el('td', { text: fullTokens(card.tokensAfter) }),
  ]);
  return el('table', { className: 'card-table' }, [head, el('tbody', {}, [...rows, total])]);
}

/** "Kept: files 100% · commands 100% · errors 6/7", with the dropped items behind a disclosure. */
function retentionView(r: NonNullable<CompactionCard['retention']>): HTMLElement {
  const line = el('span', { className: 'retention-line', text: `Kept: ${r.line}` });
  if (r.dropped.length === 0) return el('p', { className: 'card-retention' }, [icon('checklist'), line]);
  const items = r.dropped.map((d) => el('li', {}, [el('span', { className: 'muted', text: `${d.category}: ` }), el('code', { text: d.item })]));
  const note =
    r.appended > 0 ? [el('p', { className: 'muted', text: `${r.appended} lost file(s)/command(s) were appended to the capsule from the transcript.` })] : [];
  return el('details', { className: 'card-retention' }, [
    el('summary', {}, [icon('checklist'), line, el('span', { className: 'muted', text: ` · ${r.dropped.length} dropped` })]),
    ...note,
    el('ul', { className: 'dropped' }, items),
  ]);
}

export function renderCompactionCard(card: CompactionCard): HTMLElement {
  const reclaimed = reclaimedRatio(card.tokensBefore, card.tokensAfter);
  const sum = (c: BudgetCategories): number => ORDER.reduce((a, k) => a + c[k], 0);
  const scale = Math.max(sum(card.before), sum(card.after), 1);
  const loaded = card.loaded === true;
  const heading = loaded ? 'Capsule loaded' : 'Context compacted';
  const title = loaded ? heading : `${heading} · ${reason(card.trigger)}`;

  // A loaded capsule summarizes nothing of this chat: it adds context ("0 → 694 tokens, reclaimed 0%" said the opposite).
  const figures = loaded
    ? [`adds ${shortTokens(Math.max(0, card.tokensAfter - card.tokensBefore))} tokens of context from a saved capsule`]
    : [`${shortTokens(card.tokensBefore)} → ${shortTokens(card.tokensAfter)} tokens`, `reclaimed ${percent(reclaimed)}`, duration(card.durationMs)];
  if (card.level !== undefined && card.level > 0) figures.push(`level ${card.level}`);

  const quality =
    card.quality === 'degraded'
      ? el('p', { className: 'card-quality degraded' }, [
          icon('warning'),
          el('span', { text: `Degraded: the fallback capsule was used${card.fallbackReason ? ` — ${card.fallbackReason}` : ''}` }),
        ])
      : card.quality === 'partial'
        ? el('p', { className: 'card-quality partial' }, [
            icon('info'),
            el('span', { text: "Partial capsule: the model's summary, with the sections it left out filled from the ledger" }),
          ])
        : el('p', { className: 'card-quality full' }, [icon('pass'), el('span', { text: 'Full-quality capsule' })]);

  // Ids belong in the details: the card says what happened and what it means.
  const details = el('details', { className: 'card-breakdown' }, [
    el('summary', { text: 'Details' }),
    categoryTable(card),
    el('p', { className: 'muted card-ids' }, [el('span', { text: 'Checkpoint ' }), el('code', { className: 'ck', text: card.checkpointId })]),
  ]);
  const retention = card.retention === undefined ? [] : [retentionView(card.retention)];

  return el('section', { className: card.undone === true ? 'card undone' : 'card', attrs: { 'aria-label': title } }, [
    el('header', { className: 'card-head' }, [
      icon(loaded ? 'package' : 'fold'),
      el('span', { className: 'card-title', text: heading }),
      ...(loaded ? [] : [el('span', { className: 'chip reason', text: reason(card.trigger) })]),
    ]),
    el('p', { className: 'card-figures', text: figures.join(' · ') }),
    ...(card.undone === true ? [el('p', { className: 'card-undone', text: 'Undone: the next request is built as if this capsule did not exist.' })] : []),
    ...(loaded ? [] : [miniBar('Before', card.before, card.tokensBefore, scale), miniBar('After', card.after, card.tokensAfter, scale)]),
    details,
    ...retention,
    quality,
    el('footer', { className: 'card-foot' }, [
      button({
        icon: 'eye',
        text: 'View capsule',
        label: 'View the summary (capsule) of this compaction',
        action: 'view-capsule',
        data: { ck: card.checkpointId },
      }),
      ...(card.loaded === true
        ? []
        : [
            card.undone === true
              ? button({
                  icon: 'redo',
                  text: 'Redo',
                  label: 'Redo this compaction: use its summary again',
                  action: 'redo-compaction',
                  data: { ck: card.checkpointId },
                })
              : button({
                  icon: 'discard',
                  text: 'Undo this compaction',
                  label: 'Undo this compaction: the model sees the summarized history again, later turns kept',
                  action: 'undo-compaction',
                  data: { ck: card.checkpointId },
                }),
          ]),
    ]),
  ]);
}
