// Every theme and width in Chromium: code and diff text measured against its real background (≥ 4.5:1), no overlapping controls, no title broken inside a word, the composer on screen.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostToWebview } from '../../src/protocol/messages.js';
import { snapshot } from '../unit/protocol/samples.js';
import { browserForFile, scenario, type Harness, type Theme } from './harness.js';

const browser = browserForFile();

const THEMES: readonly Theme[] = ['dark', 'light', 'high-contrast', 'high-contrast-light'];
const WIDTHS = [170, 292, 600] as const;

const SNAPSHOT: HostToWebview = {
  ...(snapshot as Extract<HostToWebview, { type: 'snapshot' }>),
  plan: [
    { step: 'Reproduce the login bug', status: 'done' },
    { step: 'Fix the token check in src/auth.ts', status: 'in_progress' },
    { step: 'Run npm test', status: 'pending' },
  ],
  approvals: [
    {
      id: 'ap_1',
      kind: 'command',
      title: 'Run `npm test` in the workspace root',
      command: 'npm test',
      cwd: 'the workspace root',
      rule: 'npm',
      ruleChoices: ['npm', 'npm test'],
    },
    {
      id: 'ap_2',
      kind: 'write',
      title: 'Edit src/auth.ts',
      path: 'src/auth.ts',
      diff: '--- a/src/auth.ts\n+++ b/src/auth.ts\n@@ -1 +1 @@\n-const ok = false;\n+const ok = check(token);\n',
    },
  ],
};

/** Contrast of every code and diff text against what is painted behind it, alpha layers composited up the tree. */
const CONTRAST = `(() => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return [0, 0, 0, 0]; const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => { const a = top[3]; return [top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a), top[2] * a + under[2] * (1 - a), 1]; };
  const behind = (el) => { const layers = []; for (let e = el; e; e = e.parentElement) layers.push(parse(getComputedStyle(e).backgroundColor)); let c = [255, 255, 255, 1]; for (const l of layers.reverse()) c = over(l, c); return c; };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const out = [];
  for (const el of document.querySelectorAll('code, pre, .diff-line, .plan-step, .approval-title, .card-title')) {
    if (!el.textContent.trim() || el.getClientRects().length === 0) continue;
    const bg = behind(el); const fg = over(parse(getComputedStyle(el).color), bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    out.push({ what: el.className || el.tagName, text: el.textContent.slice(0, 30), ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100 });
  }
  return out;
})()`;

/** Pairs of visible controls whose visible boxes (clipped by their scrolling ancestors) overlap by more than a pixel. */
const OVERLAPS = `(() => {
  const shown = (e) => {
    let r = e.getBoundingClientRect(); r = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    for (let p = e.parentElement; p; p = p.parentElement) {
      const st = getComputedStyle(p);
      if (st.overflowX === 'visible' && st.overflowY === 'visible') continue;
      const c = p.getBoundingClientRect();
      r = { left: Math.max(r.left, c.left), top: Math.max(r.top, c.top), right: Math.min(r.right, c.right), bottom: Math.min(r.bottom, c.bottom) };
    }
    return r;
  };
  const vis = Array.from(document.querySelectorAll('button, select, textarea, input, summary')).filter((e) => { const r = shown(e); return r.right - r.left > 0 && r.bottom - r.top > 0 && getComputedStyle(e).visibility !== 'hidden'; });
  const out = [];
  for (let i = 0; i < vis.length; i++) for (let j = i + 1; j < vis.length; j++) {
    const a = vis[i], b = vis[j];
    if (a.contains(b) || b.contains(a)) continue;
    const r = shown(a), s = shown(b);
    const w = Math.min(r.right, s.right) - Math.max(r.left, s.left), h = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
    if (w > 1 && h > 1) out.push((a.getAttribute('aria-label') || a.textContent.trim().slice(0, 20)) + ' × ' + (b.getAttribute('aria-label') || b.textContent.trim().slice(0, 20)));
  }
  return out;
})()`;

/** Words of titles that the layout split across lines. */
const BROKEN_WORDS = `(() => {
  const out = [];
  for (const el of document.querySelectorAll('.card-title, .approval-title, .plan-title, .title-row h1:not(.untitled), .setup-head h2')) {
    const node = el.firstChild; if (!node || node.nodeType !== 3) continue;
    const text = node.textContent; let at = 0;
    for (const word of text.split(/(\\s+)/)) {
      if (word.trim() !== '') { const r = document.createRange(); r.setStart(node, at); r.setEnd(node, at + word.length); const tops = new Set(Array.from(r.getClientRects()).map((x) => Math.round(x.top))); if (tops.size > 1) out.push(word); }
      at += word.length;
    }
  }
  return out;
})()`;

const COMPOSER_ON_SCREEN = `(() => { const t = document.querySelector('.composer textarea'); if (!t) return false; const r = t.getBoundingClientRect(); return r.height > 10 && r.top >= 0 && r.bottom <= innerHeight; })()`;

for (const theme of THEMES) {
  test(`${theme}: code, diffs and titles readable at 170, 292 and 600 px; nothing overlaps; the composer stays on screen`, async () => {
    for (const width of WIDTHS) {
      await scenario(
        browser,
        `theme-${theme}-${width}`,
        async (h: Harness) => {
          await h.send(SNAPSHOT);
          await h.until("document.querySelectorAll('.approval-card').length === 2 && !!document.querySelector('.code-block')", 'the cards and the code');
          await h.value("(document.querySelector('.approval-diff').open = true, 0)");
          await h.value('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(0))))');
          const contrast = await h.value<{ what: string; text: string; ratio: number }[]>(CONTRAST);
          assert.ok(contrast.some((c) => c.what === 'diff-line diff-add') && contrast.some((c) => c.what === 'CODE'), 'code and diff text were measured');
          const low = contrast.filter((c) => c.ratio < 4.5);
          assert.deepEqual(low, [], `${theme} at ${width}px: text below 4.5:1`);
          assert.deepEqual(await h.value<string[]>(OVERLAPS), [], `${theme} at ${width}px: overlapping controls`);
          assert.deepEqual(await h.value<string[]>(BROKEN_WORDS), [], `${theme} at ${width}px: a title broken inside a word`);
          assert.equal(await h.value<boolean>(COMPOSER_ON_SCREEN), true, `${theme} at ${width}px: the composer is on screen`);
          await h.screenshot(`theme-${theme}-${width}`);
        },
        { theme, width, height: 900 },
      );
    }
  });
}
