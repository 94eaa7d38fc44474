// The line a quiet turn gets: "No reply from the model for 30 s", with Stop and Retry (stop this request and ask the model to continue).
import { button, el, type Announcer } from './dom.js';
import { STALL_AFTER_MS, StallWatch } from './stallWatch.js';

export interface StallActions {
  stop(): void;
  retry(): void;
}

/** The line and the watch that shows it; the view feeds the watch every sign of life. */
export function stallLineFor(actions: StallActions, announcer: Announcer): { readonly element: HTMLElement; readonly watch: StallWatch } {
  const element = el('div', { className: 'stall banner warning hidden', attrs: { role: 'status' } });
  // The window's timer, looked up at each call: the webview tests swap in Playwright's fake clock.
  const watch = new StallWatch({ set: (fn, ms) => window.setTimeout(fn, ms), clear: (h) => window.clearTimeout(h) }, STALL_AFTER_MS, (stalled) => {
    element.classList.toggle('hidden', !stalled);
    if (!stalled) return;
    const stop = button({ text: 'Stop', label: 'Stop the turn' });
    stop.addEventListener('click', () => actions.stop());
    const retry = button({ text: 'Retry', label: 'Stop this request and ask the model to continue' });
    retry.addEventListener('click', () => actions.retry());
    element.replaceChildren(el('span', { text: `No reply from the model for ${Math.round(STALL_AFTER_MS / 1000)} s. It may still answer.` }), stop, retry);
    announcer.say('No reply from the model for a while. Stop or Retry are offered.');
  });
  return { element, watch };
}
