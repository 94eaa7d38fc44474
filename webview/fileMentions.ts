// The files a draft attaches: `@` mentions picked from the search list or added from an editor, their chips, and the debounced workspace search.
import type { Attachment } from '../src/protocol/messages.js';
import { isImagePath } from './composerImages.js';
import { button, el, icon } from './dom.js';
import { attachmentsIn, mentionText } from './mentions.js';

/** Keystrokes closer together than this make one file search. */
const FILE_SEARCH_DEBOUNCE_MS = 120;

export class FileMentions {
  readonly element = el('div', { className: 'attached hidden', attrs: { role: 'list', 'aria-label': 'Attached files' } });
  /** Files picked or added since the last send; those the draft still mentions go with it. */
  #picked: Attachment[] = [];
  #timer = 0;
  #request = 0;

  /** `detached`: a chip's remove button, with the mention to take out of the text. */
  constructor(
    private readonly findFiles: (requestId: number, query: string) => void,
    detached: (mention: string) => void,
  ) {
    this.element.addEventListener('click', (e) => {
      const btn = e.target instanceof Element ? e.target.closest('button[data-mention]') : null;
      const m = btn instanceof HTMLElement ? btn.dataset.mention : undefined;
      if (m !== undefined) detached(m);
    });
  }

  /** Asks the host for files matching `query` once typing pauses; only the newest search's answer counts. */
  search(query: string): void {
    window.clearTimeout(this.#timer);
    const id = ++this.#request;
    this.#timer = window.setTimeout(() => this.findFiles(id, query), FILE_SEARCH_DEBOUNCE_MS);
  }

  /** Whether `requestId` is the newest search, not yet made stale. */
  answers(requestId: number): boolean {
    return requestId === this.#request;
  }

  /** Answers to the searches made so far no longer count. */
  forgetSearch(): void {
    this.#request++;
  }

  /** No search is waiting to be asked, and none made so far counts. */
  stopSearch(): void {
    window.clearTimeout(this.#timer);
    this.#request++;
  }

  add(attachment: Attachment): void {
    this.#picked.push(attachment);
  }

  remove(mention: string): void {
    this.#picked = this.#picked.filter((a) => mentionText(a) !== mention);
  }

  /** After a send: the next draft starts with none. */
  clear(): void {
    this.#picked = [];
  }

  /** The files `text` still mentions. */
  in(text: string): Attachment[] {
    return attachmentsIn(text, this.#picked);
  }

  /** The files the draft will attach, as chips with a remove button (which takes the mention out of the text). */
  render(text: string): void {
    const list = this.in(text);
    this.element.classList.toggle('hidden', list.length === 0);
    this.element.replaceChildren(
      ...list.map((a) => {
        const m = mentionText(a);
        const remove = button({ icon: 'close', label: `Remove ${m.slice(1)}`, className: 'chip-remove', data: { mention: m } });
        return el('div', { className: 'chip attachment', attrs: { role: 'listitem', title: m.slice(1) } }, [
          icon(isImagePath(a.path) ? 'file-media' : 'file'),
          el('span', { className: 'chip-text', text: m.slice(1) }),
          remove,
        ]);
      }),
    );
  }
}
