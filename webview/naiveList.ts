// Benchmark baseline for bench/webview.ts: every item rendered at once, the approach the windowed list replaces. Not shipped.
import type { TranscriptItem } from '../src/protocol/messages.js';
import { renderItem } from './itemViews.js';

/** Same item views as the real list, all of them, into `container`. */
function renderAll(items: readonly TranscriptItem[], container: Element): void {
  const frag = document.createDocumentFragment();
  for (const item of items) frag.appendChild(renderItem(item));
  container.replaceChildren(frag);
}

(window as unknown as Record<string, unknown>).capsuleNaiveRender = renderAll;
