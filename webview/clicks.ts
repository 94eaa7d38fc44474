// Delegated clicks for rendered model output: links go to the host (never navigate), code blocks copy through the host.

export interface ClickHandlers {
  openLink(href: string): void;
  /** A workspace file link (pathLinks.ts): the host checks the path again before it opens anything. */
  openFile?(path: string, line?: number, column?: number): void;
  copy(text: string, from: HTMLElement): void;
  /** A code block's Insert at Cursor, Apply to File, New File. */
  codeBlock?(action: 'insert' | 'apply' | 'newFile', code: string, language: string | undefined): void;
  /** Any other `button[data-action]` inside the root. */
  action?(name: string, button: HTMLElement): void;
}

export function delegateClicks(root: HTMLElement, h: ClickHandlers): void {
  /** Links carry no href (pathLinks.ts detachHrefs): a file link opens the file, another goes to the host, which decides whether its scheme may open. */
  const follow = (link: HTMLElement): void => {
    const path = link.dataset.path;
    if (path !== undefined && h.openFile) {
      h.openFile(path, lineOf(link.dataset.line), lineOf(link.dataset.column));
      return;
    }
    const href = link.dataset.href ?? link.getAttribute('href');
    if (href) h.openLink(href);
  };
  root.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || !(e.target instanceof HTMLElement) || e.target.tagName !== 'A' || !root.contains(e.target)) return;
    e.preventDefault();
    follow(e.target);
  });
  root.addEventListener('click', (e) => {
    if (!(e.target instanceof Element)) return;
    const link = e.target.closest('a');
    if (link && root.contains(link)) {
      // The webview never navigates.
      e.preventDefault();
      follow(link);
      return;
    }
    const btn = e.target.closest('button[data-action]');
    if (!(btn instanceof HTMLElement) || !root.contains(btn)) return;
    const name = btn.dataset.action ?? '';
    const block = btn.closest('.code-block');
    const code = block?.querySelector('code')?.textContent ?? '';
    if (name === 'copy-code') h.copy(code, btn);
    else if (name === 'code-insert' || name === 'code-apply' || name === 'code-newFile')
      h.codeBlock?.(name === 'code-insert' ? 'insert' : name === 'code-apply' ? 'apply' : 'newFile', code, block?.getAttribute('data-lang') ?? undefined);
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
