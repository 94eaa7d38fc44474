// Model output → safe DOM: markdown-it without raw HTML, then DOMPurify with a narrow allow-list; links and copy go through the host.
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import { button, el } from './dom.js';
import { detachHrefs, linkifyPaths } from './pathLinks.js';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });
// Images would load remote content (and trip the CSP's img-src); the alt text and link stay readable without them.
md.disable(['image']);
// Table alignment arrives as a style attribute, which the CSP blocks even while DOMPurify parses it: make it a class.
md.core.ruler.push('capsule_align', (state) => {
  for (const t of state.tokens) {
    if ((t.type !== 'th_open' && t.type !== 'td_open') || !t.attrs) continue;
    const align = /text-align:\s*(left|right|center)/.exec(String(t.attrGet('style') ?? ''))?.[1];
    t.attrs = t.attrs.filter(([k]) => k !== 'style');
    if (align) t.attrJoin('class', `align-${align}`);
  }
  return true;
});

/** Schemes a rendered link may carry: web and mail, or a relative path. No javascript:, data:, vbscript:, file:. */
const SAFE_HREF = /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'strong',
  'em',
  's',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
];
// No `style` (table alignment): the CSP forbids inline styles, and they carry no meaning worth a console error.
const ALLOWED_ATTR = ['href', 'title', 'class', 'start'];

let hooked = false;
function installHooks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
    // markdown-it only writes `language-*` and (above) `align-*` classes; anything else could borrow the view's own class names.
    if (data.attrName === 'class' && !/^(?:language-[\w#+.-]{1,40}|align-(?:left|right|center))$/.test(data.attrValue)) data.keepAttr = false;
  });
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') {
      // Browsers ignore control characters and spaces inside a scheme, so the check must too.
      const href = (node.getAttribute('href') ?? '').replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
      if (!SAFE_HREF.test(href)) node.removeAttribute('href');
      else node.setAttribute('title', href);
    }
  });
}

/**
 * Sanitized markdown as DOM nodes; code blocks get a Copy button (handled by the list's delegated click listener).
 * `links`: paths the host found in the workspace; they become file links after sanitizing (pathLinks.ts).
 */
export function renderMarkdown(markdown: string, links?: readonly string[]): DocumentFragment {
  installHooks();
  const html = md.render(markdown);
  const frag = DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: SAFE_HREF,
    RETURN_DOM_FRAGMENT: true,
  });
  for (const pre of Array.from(frag.querySelectorAll('pre'))) wrapCodeBlock(pre);
  detachHrefs(frag);
  if (links !== undefined && links.length > 0) linkifyPaths(frag, new Set(links));
  return frag;
}

function wrapCodeBlock(pre: HTMLPreElement): void {
  const code = pre.querySelector('code');
  const lang = /language-([\w#+.-]+)/.exec(code?.className ?? '')?.[1] ?? '';
  const bar = el('div', { className: 'code-bar' }, [
    el('span', { className: 'code-lang', text: lang }),
    button({ icon: 'insert', label: 'Insert at Cursor', action: 'code-insert' }),
    button({ icon: 'git-pull-request-go-to-changes', label: 'Apply to File (the selection, or the whole file)', action: 'code-apply' }),
    button({ icon: 'new-file', label: 'New File with this code', action: 'code-newFile' }),
    button({ icon: 'copy', label: 'Copy code', action: 'copy-code' }),
  ]);
  const block = el('div', { className: 'code-block', attrs: lang === '' ? {} : { 'data-lang': lang } });
  pre.replaceWith(block);
  block.append(bar, pre);
}
