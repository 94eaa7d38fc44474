// The slash-command completion popup: a listbox the textarea drives (arrows move, Enter/Tab pick, Escape closes).
import { el } from './dom.js';
import type { Completion } from './slashCommands.js';

export class SlashPopup {
  readonly element = el('ul', { className: 'slash-popup hidden', attrs: { role: 'listbox', id: 'slash-popup', 'aria-label': 'Slash commands' } });
  #items: readonly Completion[] = [];
  #active = 0;

  constructor(private readonly pick: (c: Completion) => void) {
    // mousedown, not click: the textarea must keep focus.
    this.element.addEventListener('mousedown', (e) => {
      const li = e.target instanceof Element ? e.target.closest('li') : null;
      const i = Number(li?.getAttribute('data-index') ?? '-1');
      const c = this.#items[i];
      if (c) {
        e.preventDefault();
        this.pick(c);
      }
    });
  }

  /** What the list offers, for screen readers ("Slash commands", "Workspace files"). */
  setLabel(label: string): void {
    this.element.setAttribute('aria-label', label);
  }

  get open(): boolean {
    return this.#items.length > 0;
  }

  get active(): Completion | undefined {
    return this.#items[this.#active];
  }

  /** The id of the highlighted option, for the textarea's aria-activedescendant. */
  get activeId(): string | undefined {
    return this.open ? `slash-opt-${this.#active}` : undefined;
  }

  show(items: readonly Completion[]): void {
    const same = items.length === this.#items.length && items.every((c, i) => c.insert === this.#items[i]?.insert);
    this.#items = items;
    if (!same) this.#active = 0;
    this.#render();
  }

  hide(): void {
    this.show([]);
  }

  move(delta: number): void {
    if (!this.open) return;
    const n = this.#items.length;
    this.#active = (this.#active + delta + n) % n;
    this.#render();
  }

  #render(): void {
    this.element.classList.toggle('hidden', !this.open);
    this.element.replaceChildren(
      ...this.#items.map((c, i) =>
        el(
          'li',
          {
            className: i === this.#active ? 'active' : '',
            attrs: { role: 'option', id: `slash-opt-${i}`, 'data-index': String(i), 'aria-selected': String(i === this.#active) },
          },
          [el('span', { className: 'slash-label', text: c.label }), el('span', { className: 'slash-detail', text: c.detail })],
        ),
      ),
    );
    this.element.querySelector('li.active')?.scrollIntoView({ block: 'nearest' });
  }
}
