// The input: textarea (Enter sends, Shift+Enter breaks the line), slash completion, Send/Stop, and queued-input chips.
import type { QueuedInput } from '../src/protocol/messages.js';
import { button, el, icon } from './dom.js';
import { SlashPopup } from './slashPopup.js';
import { completionsFor, isExact, type Completion } from './slashCommands.js';

export interface ComposerActions {
  send(text: string, clientId: string): void;
  cancel(): void;
  checkpointIds(): readonly string[];
  draftChanged(draft: string): void;
}

export class Composer {
  readonly element: HTMLElement;
  readonly #textarea: HTMLTextAreaElement;
  readonly #stop: HTMLButtonElement;
  readonly #chips: HTMLElement;
  readonly #popup: SlashPopup;
  #hostQueue: readonly QueuedInput[] = [];
  /** Sent while busy and not yet listed by the host; shown at once so nothing typed seems lost. */
  #pending: QueuedInput[] = [];
  #busy = false;
  #barrier = false;
  #readOnly = false;
  /** After Escape or a pick the popup stays shut until the text changes. */
  #suppressed = false;
  #counter = 0;
  #draftTimer = 0;

  constructor(private readonly actions: ComposerActions, draft: string) {
    this.#popup = new SlashPopup((c) => this.#pick(c));
    this.#textarea = el('textarea', {
      attrs: { rows: '1', 'aria-label': 'Message', placeholder: 'Ask Capsule · / for commands', 'aria-autocomplete': 'list', 'aria-controls': 'slash-popup', 'aria-describedby': 'composer-hint' },
    });
    this.#textarea.value = draft;
    this.#textarea.addEventListener('input', () => this.#onInput());
    this.#textarea.addEventListener('keydown', (e) => this.#onKey(e));
    this.#textarea.addEventListener('blur', () => this.#popup.hide());
    const send = button({ icon: 'send', label: 'Send (Enter)', className: 'send' });
    send.addEventListener('click', () => this.#send());
    this.#stop = button({ icon: 'debug-stop', text: 'Stop', label: 'Stop the running turn', className: 'stop hidden' });
    this.#stop.addEventListener('click', () => this.actions.cancel());
    this.#chips = el('div', { className: 'queue hidden', attrs: { role: 'list', 'aria-label': 'Queued messages' } });
    const hint = el('div', { className: 'sr-only', text: 'Enter sends, Shift+Enter starts a new line. Type / for commands.', attrs: { id: 'composer-hint' } });
    this.element = el('div', { className: 'composer' }, [
      this.#chips,
      el('div', { className: 'input-row' }, [this.#popup.element, this.#textarea, el('div', { className: 'input-buttons' }, [this.#stop, send])]),
      hint,
    ]);
    this.#resize();
  }

  /** Puts text in the composer (a message a rewind brought back), cursor at the end, ready to edit and send. */
  setText(text: string): void {
    this.#textarea.value = text;
    this.#textarea.setSelectionRange(text.length, text.length);
    this.#resize();
    this.actions.draftChanged(text);
    this.#textarea.focus();
  }

  focus(): void {
    this.#textarea.focus();
  }

  /** An agent turn is running (Escape anywhere in the view stops it). */
  get busy(): boolean {
    return this.#busy;
  }

  setBusy(busy: boolean): void {
    this.#busy = busy;
    this.#stop.classList.toggle('hidden', !busy);
    this.#refreshPlaceholder();
  }

  setBarrier(running: boolean): void {
    this.#barrier = running;
    this.#refreshPlaceholder();
  }

  setReadOnly(readOnly: boolean): void {
    this.#readOnly = readOnly;
    this.#textarea.disabled = readOnly;
    this.#refreshPlaceholder();
  }

  /** The host's queue is the truth; pending chips it now lists are handed over to it. */
  setQueue(items: readonly QueuedInput[]): void {
    this.#hostQueue = items;
    const listed = new Set(items.map((q) => q.id));
    this.#pending = this.#pending.filter((p) => !listed.has(p.id));
    this.#renderChips();
  }

  /** A snapshot: whatever was pending is either in its queue or already consumed. */
  resetQueue(items: readonly QueuedInput[]): void {
    this.#pending = [];
    this.setQueue(items);
  }

  /** The host turned a queued input into a user message. */
  consumed(clientId: string): void {
    const before = this.#pending.length;
    this.#pending = this.#pending.filter((p) => p.id !== clientId);
    if (before !== this.#pending.length) this.#renderChips();
  }

  #refreshPlaceholder(): void {
    // Short: a narrow sidebar must fit it on the one line the empty textarea has.
    this.#textarea.placeholder = this.#readOnly ? 'Read-only in this window' : this.#barrier ? 'Compacting… input is queued' : this.#busy ? 'Working… input is queued' : 'Ask Capsule · / for commands';
  }

  #renderChips(): void {
    const all = [...this.#hostQueue, ...this.#pending];
    this.#chips.classList.toggle('hidden', all.length === 0);
    this.#chips.replaceChildren(
      ...all.map((q) => el('div', { className: 'chip queued', attrs: { role: 'listitem', title: q.text } }, [icon('clock'), el('span', { className: 'chip-label', text: 'Queued' }), el('span', { className: 'chip-text', text: q.text })])),
    );
  }

  #onInput(): void {
    this.#suppressed = false;
    this.#resize();
    this.#refreshPopup();
    window.clearTimeout(this.#draftTimer);
    this.#draftTimer = window.setTimeout(() => this.actions.draftChanged(this.#textarea.value), 200);
  }

  #refreshPopup(): void {
    const v = this.#textarea.value;
    const caretAtEnd = this.#textarea.selectionStart === v.length;
    const items: readonly Completion[] = this.#suppressed || !caretAtEnd ? [] : completionsFor(v, this.actions.checkpointIds());
    this.#popup.show(items);
    const active = this.#popup.activeId;
    if (active) this.#textarea.setAttribute('aria-activedescendant', active);
    else this.#textarea.removeAttribute('aria-activedescendant');
  }

  #onKey(e: KeyboardEvent): void {
    if (e.isComposing) return;
    if (this.#popup.open) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        this.#popup.move(e.key === 'ArrowDown' ? 1 : -1);
        const id = this.#popup.activeId;
        if (id) this.#textarea.setAttribute('aria-activedescendant', id);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        this.#suppressed = true;
        this.#refreshPopup();
        return;
      }
      const active = this.#popup.active;
      if (active && (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey))) {
        e.preventDefault();
        if (e.key === 'Enter' && isExact(active, this.#textarea.value)) this.#send();
        else this.#pick(active);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      this.#send();
    }
  }

  #pick(c: Completion): void {
    this.#textarea.value = c.insert;
    this.#textarea.setSelectionRange(c.insert.length, c.insert.length);
    // A pick that still needs an argument keeps completing (e.g. checkpoint ids after `/capsule export `).
    this.#suppressed = completionsFor(c.insert, this.actions.checkpointIds()).every((x) => isExact(x, c.insert));
    this.#refreshPopup();
    this.#resize();
    this.actions.draftChanged(c.insert);
    this.#textarea.focus();
  }

  #send(): void {
    if (this.#readOnly) return;
    const text = this.#textarea.value;
    if (text.trim().length === 0) return;
    const clientId = `c${Date.now().toString(36)}${(++this.#counter).toString(36)}`;
    this.actions.send(text, clientId);
    if (this.#busy || this.#barrier) {
      this.#pending.push({ id: clientId, text });
      this.#renderChips();
    }
    this.#textarea.value = '';
    this.#suppressed = false;
    this.#popup.hide();
    this.#textarea.removeAttribute('aria-activedescendant');
    this.#resize();
    window.clearTimeout(this.#draftTimer);
    this.actions.draftChanged('');
  }

  /** Grows with its content up to a limit (CSSOM height, which the CSP allows; style attributes it does not). */
  #resize(): void {
    this.#textarea.style.height = 'auto';
    this.#textarea.style.height = `${Math.min(this.#textarea.scrollHeight, 200)}px`;
  }
}
