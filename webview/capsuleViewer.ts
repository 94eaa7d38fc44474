// The capsule viewer: a dialog over the chat with the sections, the ledger and a line diff against the previous capsule.
import type { CapsuleView } from '../src/protocol/messages.js';
import { delegateClicks } from './clicks.js';
import { button, el, icon } from './dom.js';
import { fullTokens } from '../src/protocol/format.js';
import { diffStats, lineDiff } from './lineDiff.js';
import { renderMarkdown } from './markdown.js';
import type { ViewerTab } from './vscodeApi.js';
import { reason } from './words.js';

export interface ViewerActions {
  load(checkpointId: string): void;
  copy(text: string, from: HTMLElement): void;
  codeBlock(action: 'insert' | 'apply' | 'newFile', code: string, language: string | undefined): void;
  openLink(href: string): void;
  openFile(path: string, line?: number, column?: number): void;
  rewind(checkpointId: string): void;
  exportCapsule(checkpointId: string): void;
  /** The viewer opened, closed or changed tab (kept in UI state). */
  changed(state: { readonly checkpointId: string; readonly tab: ViewerTab } | null): void;
}

const TABS: readonly (readonly [ViewerTab, string])[] = [
  ['sections', 'Sections'],
  ['ledger', 'Ledger'],
  ['diff', 'Diff'],
];

export class CapsuleViewer {
  readonly element = el('div', { className: 'viewer-backdrop hidden' });
  #checkpointId: string | null = null;
  #capsule: CapsuleView | null = null;
  #tab: ViewerTab = 'sections';
  #opener: HTMLElement | null = null;

  constructor(private readonly actions: ViewerActions) {
    this.element.addEventListener('keydown', (e) => this.#onKey(e));
    // Capsule text is model output: its links go through the host like the chat's, and its code blocks copy the same way.
    delegateClicks(this.element, {
      openLink: (href) => actions.openLink(href),
      openFile: (p, line, col) => actions.openFile(p, line, col),
      copy: (text, from) => actions.copy(text, from),
      codeBlock: (a, code, lang) => actions.codeBlock(a, code, lang),
    });
    this.element.addEventListener('click', (e) => {
      if (e.target === this.element) this.close(); // a click on the backdrop
    });
  }

  /** The checkpoint whose capsule is shown (or awaited), or null when closed. */
  get checkpointId(): string | null {
    return this.#checkpointId;
  }

  get isOpen(): boolean {
    return this.#checkpointId !== null;
  }

  /** Opens on a checkpoint and asks the host for its capsule. */
  open(checkpointId: string, opener: HTMLElement | null, tab: ViewerTab = 'sections'): void {
    this.#checkpointId = checkpointId;
    this.#capsule = null;
    this.#tab = tab;
    this.#opener = opener;
    this.actions.load(checkpointId);
    this.actions.changed({ checkpointId, tab });
    this.#render();
    this.element.querySelector<HTMLElement>('.viewer-close')?.focus();
  }

  /** The host's `capsule` message: the answer to `open`, or a capsule the host asked to show (tree, palette, /capsule). */
  show(c: CapsuleView): void {
    if (c.checkpointId !== this.#checkpointId) {
      // While the viewer waits for the capsule the user clicked, a different one is a stale answer.
      if (this.isOpen && this.#capsule === null) return;
      // Otherwise the host asked to show it (tree, palette, /capsule): open on it; the content is already here.
      this.#checkpointId = c.checkpointId;
      this.#tab = 'sections';
      this.#opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      this.actions.changed({ checkpointId: c.checkpointId, tab: this.#tab });
      this.#capsule = c;
      this.#render();
      this.element.querySelector<HTMLElement>('.viewer-close')?.focus();
      return;
    }
    this.#capsule = c;
    this.#render();
  }

  close(): void {
    if (!this.isOpen) return;
    this.#checkpointId = null;
    this.#capsule = null;
    this.element.classList.add('hidden');
    this.element.replaceChildren();
    this.actions.changed(null);
    const back = this.#opener && this.#opener.isConnected ? this.#opener : document.querySelector<HTMLElement>('textarea');
    back?.focus();
  }

  #render(): void {
    const ck = this.#checkpointId;
    if (ck === null) return;
    const c = this.#capsule;
    this.element.classList.remove('hidden');
    const close = button({ icon: 'close', label: 'Close the capsule viewer', className: 'viewer-close' });
    close.addEventListener('click', () => this.close());
    const meta = c
      ? [
          reason(c.trigger),
          c.quality === 'degraded' ? 'degraded (fallback)' : 'full quality',
          `${fullTokens(c.tokens)} tokens`,
          ...(c.title ? [c.title] : []),
        ].join(' · ')
      : 'Loading…';
    const head = el('header', { className: 'viewer-head' }, [icon('package'), el('h2', { text: `Capsule ${ck}`, attrs: { id: 'viewer-title' } }), close]);
    const children: Node[] = [head, el('p', { className: 'viewer-meta muted', text: meta })];
    if (c) {
      if (c.quality === 'degraded')
        children.push(el('p', { className: 'banner warning', text: `The fallback capsule was used${c.degradedReason ? `: ${c.degradedReason}` : ''}.` }));
      children.push(this.#tabs(c), this.#panel(c), this.#actionsRow(c));
    } else
      children.push(
        el('p', { className: 'muted', attrs: { role: 'status' } }, [icon('loading', 'codicon-modifier-spin'), el('span', { text: ' Loading the capsule…' })]),
      );
    const dialog = el('div', { className: 'viewer', attrs: { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'viewer-title' } }, children);
    this.element.replaceChildren(dialog);
  }

  #tabs(c: CapsuleView): HTMLElement {
    const stats = c.previous ? diffStats(lineDiff(c.previous.text, c.text)) : undefined;
    const list = el('div', { className: 'tabs', attrs: { role: 'tablist', 'aria-label': 'Capsule parts' } });
    for (const [id, label] of TABS) {
      const text = id === 'diff' && stats ? `${label} (+${stats.added} −${stats.removed})` : label;
      const selected = id === this.#tab;
      const tab = el('button', {
        className: 'tab',
        text,
        attrs: {
          type: 'button',
          role: 'tab',
          id: `tab-${id}`,
          'aria-selected': String(selected),
          'aria-controls': 'viewer-panel',
          tabindex: selected ? '0' : '-1',
        },
      });
      tab.addEventListener('click', () => this.#select(id));
      list.appendChild(tab);
    }
    return list;
  }

  #panel(c: CapsuleView): HTMLElement {
    const panel = el('div', {
      className: `viewer-panel panel-${this.#tab}`,
      attrs: { role: 'tabpanel', id: 'viewer-panel', 'aria-labelledby': `tab-${this.#tab}`, tabindex: '0' },
    });
    if (this.#tab === 'sections') {
      for (const s of c.sections) panel.append(el('h3', { text: s.name }), el('div', { className: 'markdown' }, [renderMarkdown(s.body, c.links)]));
      if (c.sections.length === 0) panel.append(el('p', { className: 'muted', text: 'This capsule has no sections.' }));
    } else if (this.#tab === 'ledger') {
      panel.append(
        el('p', { className: 'muted', text: 'Built from the transcript by Capsule, never by the model.' }),
        el('div', { className: 'markdown' }, [renderMarkdown(c.ledger, c.links)]),
      );
    } else if (c.previous) {
      const lines = lineDiff(c.previous.text, c.text);
      const s = diffStats(lines);
      panel.append(
        el('p', { className: 'muted', text: `Against ${c.previous.checkpointId}: ${s.added} added, ${s.removed} removed, ${s.same} unchanged lines.` }),
      );
      const sign = { add: '+', del: '−', same: ' ' } as const;
      const words = { add: 'added', del: 'removed', same: 'unchanged' } as const;
      panel.append(
        el(
          'div',
          { className: 'diff', attrs: { role: 'list' } },
          lines.map((l) =>
            el('div', { className: `diff-line diff-${l.op}`, attrs: { role: 'listitem', 'aria-label': `${words[l.op]}: ${l.text}` } }, [
              el('span', { className: 'diff-sign', text: sign[l.op], attrs: { 'aria-hidden': 'true' } }),
              el('span', { text: l.text }),
            ]),
          ),
        ),
      );
    } else panel.append(el('p', { className: 'muted', text: 'This is the first capsule of the chat: there is nothing to compare with.' }));
    return panel;
  }

  #actionsRow(c: CapsuleView): HTMLElement {
    const copy = button({ icon: 'copy', text: 'Copy', label: 'Copy the capsule text' });
    copy.addEventListener('click', () => this.actions.copy(c.text, copy));
    const exp = button({ icon: 'export', text: 'Export…', label: `Export ${c.checkpointId} to a .capsule.md file` });
    exp.addEventListener('click', () => this.actions.exportCapsule(c.checkpointId));
    const rewind = button({ icon: 'discard', text: 'Rewind here', label: `Rewind the chat to ${c.checkpointId}` });
    rewind.addEventListener('click', () => this.actions.rewind(c.checkpointId));
    return el('div', { className: 'viewer-actions' }, [copy, exp, rewind]);
  }

  #select(tab: ViewerTab): void {
    this.#tab = tab;
    if (this.#checkpointId !== null) this.actions.changed({ checkpointId: this.#checkpointId, tab });
    this.#render();
    this.element.querySelector<HTMLElement>(`#tab-${tab}`)?.focus();
  }

  #onKey(e: KeyboardEvent): void {
    if (e.key === 'Escape') {
      e.preventDefault();
      this.close();
      return;
    }
    const target = e.target instanceof HTMLElement ? e.target : null;
    if (target?.getAttribute('role') === 'tab' && (e.key === 'ArrowRight' || e.key === 'ArrowLeft' || e.key === 'Home' || e.key === 'End')) {
      e.preventDefault();
      const i = TABS.findIndex(([id]) => id === this.#tab);
      const n = TABS.length;
      const next = e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : (i + (e.key === 'ArrowRight' ? 1 : n - 1)) % n;
      const t = TABS[next];
      if (t) this.#select(t[0]);
      return;
    }
    if (e.key === 'Tab') this.#trapFocus(e);
  }

  /** Keeps Tab inside the dialog while it is open (aria-modal promises that). */
  #trapFocus(e: KeyboardEvent): void {
    const focusable = Array.from(this.element.querySelectorAll<HTMLElement>('button:not([disabled]), [tabindex="0"]'));
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  }
}
