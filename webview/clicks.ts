// Delegated clicks for rendered model output: links go to the host (never navigate), code blocks copy through the host.

export interface ClickHandlers {
  openLink(href: string): void;
  /** A workspace file link (pathLinks.ts): the host checks the path again before it opens anything. */
  openFile?(path: string, line?: number, column?: number): void;
  copy(text: string, from: HTMLElement): void;
  /** Any other `button[data-action]` inside the root. */
  action?(name: string, button: HTMLElement): void;
}

export function delegateClicks(root: HTMLElement, h: ClickHandlers): void {
  root.addEventListener('click', (e) => {
    if (!(e.target instanceof Element)) return;
    const link = e.target.closest('a');
    if (link && root.contains(link)) {
      // The webview never navigates; the host decides whether the scheme may open.
      e.preventDefault();
      const path = link.dataset.path;
      if (path !== undefined && h.openFile) {
        h.openFile(path, lineOf(link.dataset.line), lineOf(link.dataset.column));
        return;
      }
      const href = link.getAttribute('href');
      if (href) h.openLink(href);
      return;
    }
    const btn = e.target.closest('button[data-action]');
    if (!(btn instanceof HTMLElement) || !root.contains(btn)) return;
    const name = btn.dataset.action ?? '';
    if (name === 'copy-code') h.copy(btn.closest('.code-block')?.querySelector('code')?.textContent ?? '', btn);
    else h.action?.(name, btn);
  });
  // Middle-click would open a link in a new window of the webview host.
  root.addEventListener('auxclick', (e) => {
    if (e.target instanceof Element && e.target.closest('a')) e.preventDefault();
  });
}

function lineOf(v: string | undefined): number | undefined {
  const n = Number(v);
  return v !== undefined && Number.isInteger(n) && n >= 1 ? n : undefined;
}
