// File paths in rendered text become links that open the file — only the paths the host found in the workspace, built with DOM calls after sanitizing.
import { findPathRefs, parsePathRef, type PathRef } from '../src/protocol/pathRefs.js';

/** A link that opens a workspace file through the host; never a navigation (clicks.ts handles it). */
function fileLink(ref: PathRef, text: string): HTMLAnchorElement {
  const a = document.createElement('a');
  a.className = 'file-link';
  a.textContent = text;
  // No href: VS Code's webview frame opens any clicked a[href] itself (a "Not found" tab for a relative one), whatever
  // the page's own handler did. tabindex and role keep it a focusable link; clicks.ts turns click and Enter into `openFile`.
  a.setAttribute('tabindex', '0');
  a.setAttribute('role', 'link');
  a.dataset.path = ref.path;
  if (ref.line !== undefined) a.dataset.line = String(ref.line);
  if (ref.column !== undefined) a.dataset.column = String(ref.column);
  a.setAttribute('title', `Open ${ref.path}${ref.line === undefined ? '' : ` at line ${ref.line}`}`);
  return a;
}

/** Running text with the known paths in it as links. */
export function linkifyText(text: string, links: ReadonlySet<string>): DocumentFragment {
  const frag = document.createDocumentFragment();
  let at = 0;
  for (const m of findPathRefs(text)) {
    if (!links.has(m.path)) continue;
    if (m.start > at) frag.appendChild(document.createTextNode(text.slice(at, m.start)));
    frag.appendChild(fileLink(m, text.slice(m.start, m.end)));
    at = m.end;
  }
  if (at < text.length) frag.appendChild(document.createTextNode(text.slice(at)));
  return frag;
}

/**
 * Links the known paths inside sanitized markdown: inline code that is a path (spaces allowed), a link whose target
 * is one, and paths in plain text. Code blocks stay as they are (their text is code, and the Copy button copies it).
 */
export function linkifyPaths(root: DocumentFragment | HTMLElement, links: ReadonlySet<string>): void {
  if (links.size === 0) return;
  for (const a of Array.from(root.querySelectorAll('a[data-href]'))) {
    const ref = parsePathRef(a.getAttribute('data-href') ?? '');
    if (ref === undefined || !links.has(ref.path)) continue;
    a.classList.add('file-link');
    a.removeAttribute('href');
    (a as HTMLElement).dataset.path = ref.path;
    if (ref.line !== undefined) (a as HTMLElement).dataset.line = String(ref.line);
  }
  for (const code of Array.from(root.querySelectorAll('code'))) {
    if (code.closest('pre, a') !== null) continue;
    const ref = parsePathRef(code.textContent ?? '');
    if (ref === undefined || !links.has(ref.path)) continue;
    const a = fileLink(ref, '');
    code.replaceWith(a);
    a.appendChild(code);
  }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
    if (n instanceof Text && n.parentElement?.closest('a, code, pre') == null) texts.push(n);
  }
  for (const t of texts) {
    const value = t.data;
    if (!findPathRefs(value).some((m) => links.has(m.path))) continue;
    t.replaceWith(linkifyText(value, links));
  }
}

/**
 * Moves every link's target from `href` to `data-href`: VS Code's webview frame acts on a clicked a[href] before and
 * regardless of the page (a relative one opens a "Not found" editor tab), so the view's links carry none and go
 * through the host only (clicks.ts).
 */
export function detachHrefs(root: DocumentFragment | HTMLElement): void {
  for (const a of Array.from(root.querySelectorAll('a[href]'))) {
    a.setAttribute('data-href', a.getAttribute('href') ?? '');
    a.removeAttribute('href');
    a.setAttribute('tabindex', '0');
    a.setAttribute('role', 'link');
  }
}
