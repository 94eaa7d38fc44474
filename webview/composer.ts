// The input: textarea (Enter sends, Shift+Enter breaks the line), slash completion, Send/Stop, queued-input chips, and pasted or dropped images.
import type { Attachment, ComposerImage } from '../src/protocol/messages.js';
import { filesOf, ImageTray, type ModelSight } from './composerImages.js';
import { FileMentions } from './fileMentions.js';
import { modeSelect, showMode } from './modeSelect.js';
import { QueueChips } from './queueChips.js';
import { button, el } from './dom.js';
import { applyPick, folderOf, mentionAt, nameOf } from './mentions.js';
import { SlashPopup } from './slashPopup.js';
import { completionsFor, isExact, type Completion } from './slashCommands.js';

export interface ComposerActions {
  /** `attachments`: the files the draft still mentions, picked from the `@` list or added from an editor. */
  send(text: string, clientId: string, attachments: readonly Attachment[], images?: readonly ComposerImage[]): void;
  /** Asks the host for workspace files matching `query`; the answer comes back through `fileMatches`. */
  findFiles(requestId: number, query: string): void;
  cancel(): void;
  checkpointIds(): readonly string[];
  draftChanged(draft: string): void;
}

export class Composer {
  readonly element: HTMLElement;
  readonly #textarea: HTMLTextAreaElement;
  readonly #stop: HTMLButtonElement;
  /** Queued inputs, shown as chips above the message box until the host consumes them. */
  readonly queue = new QueueChips();
  readonly #popup: SlashPopup;
  #busy = false;
  #barrier = false;
  #readOnly = false;
  /** After Escape or a pick the popup stays shut until the text changes. */
  #suppressed = false;
  #counter = 0;
  #draftTimer = 0;
  /** What the popup lists: slash commands, or workspace files for an `@` mention. */
  #mode: 'slash' | 'file' = 'slash';
  readonly #files: FileMentions;
  /** Agent or Ask; hidden while the host says nothing about the mode (no chat, or one without instructions). */
  readonly #modeSelect: HTMLSelectElement;
  readonly #images = new ImageTray();

  constructor(
    private readonly actions: ComposerActions,
    draft: string,
  ) {
    this.#popup = new SlashPopup((c) => this.#pick(c));
    this.#textarea = el('textarea', {
      attrs: {
        rows: '1',
        'aria-label': 'Message',
        placeholder: 'Ask · / commands · @ files',
        'aria-autocomplete': 'list',
        'aria-controls': 'slash-popup',
        'aria-describedby': 'composer-hint',
      },
    });
    this.#textarea.value = draft;
    this.#textarea.addEventListener('input', () => this.#onInput());
    this.#textarea.addEventListener('keydown', (e) => this.#onKey(e));
    this.#textarea.addEventListener('blur', () => this.#popup.hide());
    // A pasted screenshot becomes a chip; text pasted along with it still goes in.
    this.#textarea.addEventListener('paste', (e) => {
      if (this.#images.add(filesOf(e.clipboardData)) && e.clipboardData?.getData('text/plain') === '') e.preventDefault();
    });
    // Moving the caret into or out of an `@` mention opens or closes the file list, as typing does.
    this.#textarea.addEventListener('click', () => this.#refreshPopup());
    this.#textarea.addEventListener('keyup', (e) => {
      if (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') this.#refreshPopup();
    });
    const send = button({ icon: 'send', label: 'Send (Enter)', className: 'send' });
    send.addEventListener('click', () => this.#send());
    this.#stop = button({ icon: 'debug-stop', text: 'Stop', label: 'Stop the running turn', className: 'stop hidden' });
    this.#stop.addEventListener('click', () => this.actions.cancel());
    const hint = el('div', {
      className: 'sr-only',
      text: 'Enter sends, Shift+Enter starts a new line. Type / for commands, @ to attach a workspace file; paste or drop an image to send it along.',
      attrs: { id: 'composer-hint' },
    });
    this.#files = new FileMentions(
      (id, query) => this.actions.findFiles(id, query),
      (m) => this.#onDetach(m),
    );
    // A switch is the /mode command, so it waits its turn and shows in the chat like one typed.
    this.#modeSelect = modeSelect((mode) => this.actions.send(`/mode ${mode}`, `m${Date.now().toString(36)}${(++this.#counter).toString(36)}`, []));
    this.element = el('div', { className: 'composer' }, [
      this.queue.element,
      this.#files.element,
      this.#images.element,
      el('div', { className: 'input-row' }, [
        this.#popup.element,
        this.#textarea,
        el('div', { className: 'input-buttons' }, [this.#modeSelect, this.#stop, send]),
      ]),
      hint,
    ]);
    this.element.addEventListener('dragover', (e) => {
      if (e.dataTransfer?.types.includes('Files') === true) e.preventDefault();
    });
    this.element.addEventListener('drop', (e) => {
      if (this.#images.add(filesOf(e.dataTransfer))) e.preventDefault();
    });
    this.#resize();
  }

  /** The chosen model, so images are refused here, before sending, when it cannot see them. */
  setModel(model: ModelSight | undefined): void {
    this.#images.setModel(model);
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

  /** The mode the host reports (with each budget); undefined hides the switch. */
  setMode(mode: 'agent' | 'ask' | undefined): void {
    showMode(this.#modeSelect, mode, this.#readOnly);
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

  #refreshPlaceholder(): void {
    // Short: a narrow sidebar must fit it on the one line the empty textarea has.
    this.#textarea.placeholder = this.#readOnly
      ? 'Read-only in this window'
      : this.#barrier
        ? 'Compacting… input is queued'
        : this.#busy
          ? 'Working… input is queued'
          : 'Ask · / commands · @ files';
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
    const caret = this.#textarea.selectionStart;
    const caretAtEnd = caret === v.length;
    const mention = this.#suppressed || v.startsWith('/') ? undefined : mentionAt(v, caret);
    if (mention !== undefined) {
      this.#files.search(mention.query);
      // The previous answer stays up until the next arrives, so the list does not flicker while typing.
      if (this.#mode !== 'file') this.#popup.hide();
    } else {
      this.#files.stopSearch();
      this.#mode = 'slash';
      this.#popup.setLabel('Slash commands');
      this.#popup.show(this.#suppressed || !caretAtEnd ? [] : completionsFor(v, this.actions.checkpointIds()));
    }
    this.#renderAttached();
    this.#syncActive();
  }

  #syncActive(): void {
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
        this.#syncActive();
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
        if (this.#mode === 'file') this.#pickFile(active);
        else if (e.key === 'Enter' && isExact(active, this.#textarea.value)) this.#send();
        else this.#pick(active);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      this.#send();
    }
  }

  /** The host's answer to a file search; ignored unless it answers the newest search of a mention still being typed. */
  fileMatches(requestId: number, files: readonly string[]): void {
    if (!this.#files.answers(requestId) || this.#suppressed) return;
    if (mentionAt(this.#textarea.value, this.#textarea.selectionStart) === undefined) return;
    this.#mode = 'file';
    this.#popup.setLabel('Workspace files');
    this.#popup.show(files.map((p) => ({ label: nameOf(p), insert: p, detail: folderOf(p) })));
    this.#syncActive();
  }

  /** "Add Selection to Chat": the mention goes in at the caret (spaced from its neighbours) and its lines attach on send. */
  insertMention(mention: string, attachment: Attachment): void {
    const v = this.#textarea.value;
    const at = this.#textarea.selectionStart;
    const before = v.slice(0, at);
    const after = v.slice(this.#textarea.selectionEnd);
    const text = `${before === '' || /\s$/.test(before) ? '' : ' '}${mention} `;
    this.#textarea.value = `${before}${text}${after.replace(/^ /, '')}`;
    const caret = before.length + text.length;
    this.#textarea.setSelectionRange(caret, caret);
    this.#files.add(attachment);
    this.#suppressed = true;
    this.#popup.hide();
    this.#renderAttached();
    this.#resize();
    this.actions.draftChanged(this.#textarea.value);
    this.#textarea.focus();
  }

  #pickFile(c: Completion): void {
    const v = this.#textarea.value;
    const caret = this.#textarea.selectionStart;
    const q = mentionAt(v, caret);
    if (q === undefined) return;
    const attachment: Attachment = { path: c.insert };
    const next = applyPick(v, q, caret, attachment);
    this.#textarea.value = next.value;
    this.#textarea.setSelectionRange(next.caret, next.caret);
    this.#files.add(attachment);
    this.#suppressed = true;
    this.#files.forgetSearch();
    this.#popup.hide();
    this.#mode = 'slash';
    this.#textarea.removeAttribute('aria-activedescendant');
    this.#renderAttached();
    this.#resize();
    this.actions.draftChanged(next.value);
    this.#textarea.focus();
  }

  #renderAttached(): void {
    this.#files.render(this.#textarea.value);
  }

  /** A chip's remove button: its mention goes out of the text too. */
  #onDetach(m: string): void {
    this.#textarea.value = this.#textarea.value.split(m).join('').replace(/ {2,}/g, ' ');
    this.#files.remove(m);
    this.#renderAttached();
    this.#resize();
    this.actions.draftChanged(this.#textarea.value);
    this.#textarea.focus();
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
    const attachments = this.#files.in(text);
    const images = this.#images.forSend(text, attachments);
    if (images === undefined) return;
    const clientId = `c${Date.now().toString(36)}${(++this.#counter).toString(36)}`;
    this.actions.send(text, clientId, attachments, images);
    if (images.length > 0) this.#images.clear();
    this.#files.clear();
    this.#files.stopSearch();
    if (this.#busy || this.#barrier) {
      this.queue.addPending({ id: clientId, text });
    }
    this.#textarea.value = '';
    this.#suppressed = false;
    this.#popup.hide();
    this.#textarea.removeAttribute('aria-activedescendant');
    this.#renderAttached();
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
