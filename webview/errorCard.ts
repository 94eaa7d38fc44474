// A failed turn's card (docs/behaviour.md#errors): what failed and where, the provider's words as plain text, Retry and "Open settings".
import type { ErrorItem, FaultView, SettingsTarget } from '../src/protocol/messages.js';
import { button, el, icon } from './dom.js';

/** Bubbles from the card's buttons to the page, which posts the intent (the list stays unaware of it). */
export const ERROR_ACTION_EVENT = 'capsule-error-action';

export type ErrorAction = { readonly action: 'retry'; readonly turnId: string } | { readonly action: 'settings'; readonly target: SettingsTarget | 'window' };

const SETTINGS_LABELS: Readonly<Record<SettingsTarget, string>> = {
  apiKey: 'Open settings: the API key for this endpoint',
  model: 'Open settings: the model id',
  baseUrl: 'Open settings: the base URL',
};

export function fire(from: HTMLElement, detail: ErrorAction): void {
  from.dispatchEvent(new CustomEvent<ErrorAction>(ERROR_ACTION_EVENT, { bubbles: true, detail }));
}

/** `127.0.0.1:8080 · HTTP 500`, or the network code when no status came back. */
function whereLine(f: FaultView): string {
  const status = f.status !== undefined ? `HTTP ${f.status}` : (f.code ?? '');
  return [f.endpoint ?? 'the model', status].filter((p) => p !== '').join(' · ');
}

export function renderErrorCard(item: ErrorItem & { readonly fault: FaultView }): HTMLElement[] {
  const f = item.fault;
  const actions: HTMLElement[] = [];
  if (f.retry) {
    const retry = button({ icon: 'refresh', text: 'Retry', label: 'Retry: send this turn again', className: 'primary' });
    retry.addEventListener('click', () => {
      retry.disabled = true; // one retry per click; the card goes away when the retry starts a new branch
      fire(retry, { action: 'retry', turnId: f.turnId });
    });
    actions.push(retry);
  }
  const target = f.settings;
  if (target !== undefined) {
    const open = button({ icon: 'gear', text: 'Open settings', label: SETTINGS_LABELS[target] });
    open.addEventListener('click', () => fire(open, { action: 'settings', target }));
    actions.push(open);
  }
  return [
    el('div', { className: 'error-card' }, [
      el('div', { className: 'error-head' }, [
        icon('error'),
        el('strong', { className: 'error-title', text: f.title }),
        el('span', { className: 'error-where', text: whereLine(f) }),
      ]),
      // The provider's words are data: text, never markdown or HTML.
      el('pre', { className: 'error-message', text: f.message, attrs: { 'aria-label': 'The provider said' } }),
      el('p', { className: 'error-hint', text: f.hint }),
      ...(actions.length > 0 ? [el('div', { className: 'error-actions' }, actions)] : []),
    ]),
  ];
}
