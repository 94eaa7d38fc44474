// A `task` row as a subagent's card (docs/subagents.md#seeing-them): description, live status, its own small meter, requests and tokens, its transcript on demand.
import type { SubagentLine, SubagentStatus, SubagentView, ToolItem } from '../src/protocol/messages.js';
import { button, el, icon, srOnly } from './dom.js';
import { linkifyText } from './pathLinks.js';

const STATES: Readonly<Record<SubagentStatus, { readonly icon: string; readonly label: string }>> = {
  running: { icon: 'loading', label: 'running' },
  compacting: { icon: 'fold', label: 'compacting' },
  done: { icon: 'pass', label: 'done' },
  stopped: { icon: 'error', label: 'stopped' },
};

const n = (x: number): string => Math.round(x).toLocaleString('en-US');

/** The subagent's own context against its own window: never the chat's meter. */
function smallMeter(s: SubagentView): HTMLElement {
  const pct = s.contextWindow > 0 ? Math.min(100, Math.max(0, (s.contextTokens / s.contextWindow) * 100)) : 0;
  const fill = el('span', { className: 'subagent-meter-fill' });
  fill.style.width = `${pct.toFixed(1)}%`;
  const words = s.contextWindow > 0 ? `${n(s.contextTokens)} of ${n(s.contextWindow)} tokens in its context` : 'context not measured yet';
  // An image with words, not a second role="meter": the chat's own meter stays the one meter of the view.
  return el(
    'span',
    { className: 'subagent-meter', attrs: { role: 'img', 'data-percent': pct.toFixed(0), 'aria-label': `Subagent context: ${words}`, title: words } },
    [fill],
  );
}

function figures(s: SubagentView): string {
  const parts = [`${n(s.requests)} request${s.requests === 1 ? '' : 's'}`, `${n(s.tokens)} tokens`];
  if (s.contextWindow > 0) parts.push(`context ${n(s.contextTokens)} / ${n(s.contextWindow)}`);
  if (s.compactions > 0) parts.push(`${n(s.compactions)} compaction${s.compactions === 1 ? '' : 's'}`);
  return parts.join(' · ');
}

/** The card: a collapsible row like a tool call's; expanded, its figures, its answer and its transcript. */
export function subagentCard(item: ToolItem, s: SubagentView): HTMLElement[] {
  const st = STATES[s.status];
  const links = new Set(item.links ?? []);
  const live = s.status === 'running' || s.status === 'compacting';
  const summary = el('summary', {}, [
    icon(st.icon, `status subagent-status-${s.status}${live ? ' codicon-modifier-spin' : ''}`),
    // The row is narrow in a sidebar: the description gets the room, "subagent" is said by the icon and to screen readers.
    icon('hubot', 'subagent-icon'),
    srOnly('Subagent: '),
    el('span', { className: 'subagent-description', attrs: { title: `Subagent: ${s.description}` }, text: s.description }),
    el('span', { className: `subagent-state subagent-state-${s.status}`, text: st.label }),
    smallMeter(s),
    srOnly(`, ${figures(s)}`),
  ]);
  const body: Node[] = [el('p', { className: 'subagent-figures', text: figures(s) })];
  if (s.status === 'stopped' && s.reason !== undefined) body.push(el('p', { className: 'subagent-reason', text: `Stopped: ${s.reason}` }));
  if (item.resultPreview !== undefined) body.push(el('pre', { className: 'tool-result' }, [linkifyText(item.resultPreview, links)]));
  body.push(
    el('details', { className: 'subagent-transcript-box' }, [
      el('summary', { text: 'Transcript' }),
      el('div', { className: 'subagent-transcript', attrs: { 'aria-live': 'polite' } }, [el('p', { className: 'muted', text: 'Loading…' })]),
    ]),
  );
  return [
    el('details', { className: `tool subagent status-${item.status}`, attrs: { 'data-subagent': s.id } }, [
      summary,
      el('div', { className: 'subagent-body' }, body),
    ]),
  ];
}

function line(l: SubagentLine): HTMLElement {
  if (l.kind === 'tool') {
    return el('div', { className: `subagent-line subagent-line-tool status-${l.status ?? 'ok'}` }, [
      el('span', { className: 'tool-name', text: l.name ?? 'tool' }),
      el('pre', { className: 'subagent-line-text', text: l.text }),
    ]);
  }
  const who = l.kind === 'user' ? 'Task' : l.kind === 'assistant' ? 'Subagent' : 'Compaction';
  return el('div', { className: `subagent-line subagent-line-${l.kind}` }, [
    el('span', { className: 'subagent-line-who', text: who }),
    el('div', { className: 'subagent-line-text', text: l.text }),
  ]);
}

/** One page of the transcript, with the way to the neighbouring pages. */
function transcriptPage(page: number, pages: number, lines: readonly SubagentLine[]): Node[] {
  const out: Node[] = lines.length === 0 ? [el('p', { className: 'muted', text: 'Nothing recorded yet.' })] : lines.map(line);
  if (pages > 1) {
    const nav: Node[] = [];
    if (page > 1)
      nav.push(
        button({ icon: 'chevron-left', text: 'Earlier', label: 'Earlier part of the transcript', action: 'subagent-page', data: { page: String(page - 1) } }),
      );
    nav.push(el('span', { className: 'muted', text: `Page ${page} of ${pages}` }));
    if (page < pages)
      nav.push(
        button({ icon: 'chevron-right', text: 'Later', label: 'Later part of the transcript', action: 'subagent-page', data: { page: String(page + 1) } }),
      );
    out.push(el('div', { className: 'subagent-pager' }, nav));
  }
  return out;
}

/** Puts a page of the transcript into the card of `row` (the rendered task row), if it is still shown. */
export function fillTranscript(row: HTMLElement | undefined, page: number, pages: number, lines: readonly SubagentLine[]): void {
  const box = row?.querySelector<HTMLElement>('.subagent-transcript');
  if (box === undefined || box === null) return;
  box.replaceChildren(...transcriptPage(page, pages, lines));
  box.dataset.loaded = String(page);
}

/** A re-rendered card (its subagent made progress) keeps what the user opened: the transcript box and the page loaded in it. */
export function keepTranscript(old: HTMLElement, next: HTMLElement): void {
  const before = old.querySelector('details.subagent-transcript-box');
  const after = next.querySelector('details.subagent-transcript-box');
  if (before === null || after === null || !before.hasAttribute('open')) return;
  after.replaceWith(before);
}

/** Opening a card's Transcript asks the host for its first page (on demand: a long subagent's lines are not sent with the row). */
export function watchTranscripts(root: HTMLElement, request: (itemId: string, page: number) => void): void {
  root.addEventListener(
    'toggle',
    (e) => {
      const box = e.target;
      if (!(box instanceof HTMLDetailsElement) || !box.classList.contains('subagent-transcript-box') || !box.open) return;
      const id = box.closest('[data-id]')?.getAttribute('data-id');
      const inner = box.querySelector<HTMLElement>('.subagent-transcript');
      if (id === null || id === undefined || inner === null || inner.dataset.loaded !== undefined) return;
      request(id, 1);
    },
    // toggle does not bubble: the list listens while it goes down.
    true,
  );
}
