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

/** Replaces all children of `parent`. */
export function replaceChildren(parent: Element, children: readonly Node[]): void {
  parent.replaceChildren(...children);
}
