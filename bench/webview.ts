// Benchmark: the chat webview in headless Chromium with 5,000 messages: first render and scroll-to-top, vs rendering every item.
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import type { Browser } from 'playwright-core';
import { manyItems, snapshot } from '../test/unit/protocol/samples.js';
import { REPO, ensureBundle, launchBrowser, openHarness, type Harness } from '../test/webview/harness.js';
import { compare, median, type BenchRow } from './lib.js';

const TOTAL = 5000;
const RUNS = 5;

/** Two animation frames: the change has been laid out and painted. */
const FRAMES = 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))';

async function naiveBundle(): Promise<string> {
  const r = await esbuild.build({
    entryPoints: [join(REPO, 'webview', 'naiveList.ts')],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return r.outputFiles[0]?.text ?? '';
}

/** A fresh view with the 5,000 items already in page memory (building them is not what is measured). */
async function prepared(browser: Browser): Promise<Harness> {
  const h = await openHarness(browser, { width: 420, height: 800 });
  await h.send({ ...snapshot, transcript: { items: [], hasMore: false } });
  await h.value(`(window.__items = ${JSON.stringify(manyItems(TOTAL))}, 0)`);
  return h;
}

interface Measure {
  readonly renderMs: number;
  readonly scrollMs: number;
  readonly nodes: number;
  readonly steps: number;
}

/** Until the first message is on screen: jump to the top, let the view react for two frames, repeat. */
const WALK = `(async () => {
  const list = document.querySelector('.list');
  const onScreen = () => {
    const first = document.querySelector('[data-id="m0"]');
    if (!first) return false;
    const r = first.getBoundingClientRect();
    const l = list.getBoundingClientRect();
    return r.bottom > l.top && r.top < l.bottom;
  };
  const t0 = performance.now();
  let steps = 0;
  while (!onScreen() && steps < 1000) {
    list.scrollTop = 0;
    await ${FRAMES};
    steps++;
  }
  return { ms: performance.now() - t0, steps };
})()`;

async function measureWindowed(browser: Browser): Promise<Measure> {
  const h = await prepared(browser);
  try {
    const renderMs = await h.value<number>(`(async () => {
      const data = { ...${JSON.stringify({ ...snapshot, transcript: { items: [], hasMore: false } })}, transcript: { items: window.__items, hasMore: false } };
      const t0 = performance.now();
      window.dispatchEvent(new MessageEvent('message', { data }));
      await ${FRAMES};
      return performance.now() - t0;
    })()`);
    const nodes = await h.value<number>("document.querySelectorAll('#root *').length");
    const walk = await h.value<{ ms: number; steps: number }>(WALK);
    return { renderMs, scrollMs: walk.ms, nodes, steps: walk.steps };
  } finally {
    await h.close();
  }
}

async function measureNaive(browser: Browser, code: string): Promise<Measure> {
  const h = await prepared(browser);
  try {
    // Evaluated through the debugger protocol, which the page's CSP does not govern (a <script> tag would be refused).
    await h.value(code);
    const renderMs = await h.value<number>(`(async () => {
      const list = document.querySelector('.list');
      const t0 = performance.now();
      window.capsuleNaiveRender(window.__items, document.querySelector('.list-body'));
      list.scrollTop = list.scrollHeight;
      await ${FRAMES};
      return performance.now() - t0;
    })()`);
    const nodes = await h.value<number>("document.querySelectorAll('#root *').length");
    const walk = await h.value<{ ms: number; steps: number }>(WALK);
    return { renderMs, scrollMs: walk.ms, nodes, steps: walk.steps };
  } finally {
    await h.close();
  }
}

export async function run(): Promise<BenchRow[]> {
  await ensureBundle();
  const code = await naiveBundle();
  const browser = await launchBrowser();
  try {
    const ours: Measure[] = [];
    const naive: Measure[] = [];
    await measureWindowed(browser); // warm-up: the first page pays for browser start-up caches
    for (let i = 0; i < RUNS; i++) {
      // Interleaved so drift on a shared machine hits both sides alike.
      ours.push(await measureWindowed(browser));
      naive.push(await measureNaive(browser, code));
    }
    const m = (xs: readonly Measure[], k: 'renderMs' | 'scrollMs'): number => median(xs.map((x) => x[k]));
    return [
      compare(`webview first render, ${TOTAL}-message snapshot (windowed)`, m(ours, 'renderMs'), `render all ${TOTAL} items`, m(naive, 'renderMs'), RUNS, {
        domNodes: median(ours.map((x) => x.nodes)),
        baselineDomNodes: median(naive.map((x) => x.nodes)),
      }),
      compare(
        `webview jump to the first of ${TOTAL} messages (windowed)`,
        m(ours, 'scrollMs'),
        `same jump, all ${TOTAL} rendered`,
        m(naive, 'scrollMs'),
        RUNS,
        {
          steps: median(ours.map((x) => x.steps)),
        },
      ),
    ];
  } finally {
    await browser.close();
  }
}
