// A tiny DOM builder: every text goes through textContent, so host data can never become markup.

export interface ElOptions {
  readonly className?: string;
  readonly text?: string;
  readonly attrs?: Readonly<Record<string, string>>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, opts: ElOptions = {}, children: readonly Node[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (opts.className) node.className = opts.className;
  if (opts.text !== undefined) node.textContent = opts.text;
  for (const [k, v] of Object.entries(opts.attrs ?? {})) node.setAttribute(k, v);
  for (const c of children) node.appendChild(c);
  return node;
}

/** A codicon; decorative, so screen readers skip it (the surrounding control carries the words). */
export function icon(name: string, extraClass = ''): HTMLElement {
  return el('span', { className: `codicon codicon-${name}${extraClass ? ` ${extraClass}` : ''}`, attrs: { 'aria-hidden': 'true' } });
}

export interface ButtonOptions {
  readonly icon?: string;
  /** Visible text; without it the button shows only its icon and `label` is its accessible name. */
  readonly text?: string;
  readonly label: string;
  readonly className?: string;
  /** For buttons handled by a delegated click listener. */
  readonly action?: string;
  readonly data?: Readonly<Record<string, string>>;
}

export function button(o: ButtonOptions): HTMLButtonElement {
  const attrs: Record<string, string> = { type: 'button', title: o.label };
  if (o.text === undefined) attrs['aria-label'] = o.label;
  if (o.action !== undefined) attrs['data-action'] = o.action;
  for (const [k, v] of Object.entries(o.data ?? {})) attrs[`data-${k}`] = v;
  const children: Node[] = [];
  if (o.icon !== undefined) children.push(icon(o.icon));
  if (o.text !== undefined) children.push(el('span', { text: o.text }));
  const cls = [o.text === undefined ? 'icon-button' : 'text-button', o.className ?? ''].filter((c) => c.length > 0).join(' ');
  return el('button', { className: cls, attrs }, children);
}

/** Text for screen readers only (the live region, hidden labels). */
export function srOnly(text: string): HTMLElement {
  return el('span', { className: 'sr-only', text });
}

/** One polite live region for the whole view: streaming text is never announced, only events worth hearing. */
export class Announcer {
  readonly element = el('div', { className: 'sr-only', attrs: { role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' } });

  say(text: string): void {
    // Clearing first makes a repeat of the same sentence count as a change.
    this.element.textContent = '';
    window.setTimeout(() => {
      this.element.textContent = text;
    }, 30);
  }
}
