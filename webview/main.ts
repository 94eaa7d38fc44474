// Webview entry: handshake with the host, keep the latest state, render the session header and budget panel.
import type { BudgetView, HostToWebview, SessionView, SettingsView, WebviewCommand } from '../src/protocol/messages.js';
import { renderBudget } from './budgetView.js';
import { el, replaceChildren } from './dom.js';
import { connectHost } from './vscodeApi.js';

interface ViewState {
  received: boolean;
  session: SessionView | null;
  budget: BudgetView | null;
  settings: SettingsView | null;
  error: string | undefined;
  notice: { readonly level: 'info' | 'warning' | 'error'; readonly text: string } | undefined;
}

const host = connectHost();
const state: ViewState = { received: false, session: null, budget: null, settings: null, error: undefined, notice: undefined };

function root(): HTMLElement {
  const r = document.getElementById('root');
  if (!r) throw new Error('webview root element missing');
  return r;
}

function button(label: string, command: WebviewCommand, title: string): HTMLButtonElement {
  const b = el('button', { text: label, attrs: { type: 'button', title, 'aria-label': title } });
  b.addEventListener('click', () => host.post({ type: 'command', command }));
  return b;
}

function banner(level: 'info' | 'warning' | 'error', text: string): HTMLElement {
  return el('div', { className: `banner ${level}`, text, attrs: { role: level === 'error' ? 'alert' : 'status' } });
}

function sessionHeader(s: SessionView): HTMLElement {
  const title = s.title && s.title.length > 0 ? s.title : 'Chat';
  return el('header', { className: 'session' }, [
    el('h2', { text: title }),
    el('span', { className: 'session-meta', text: `${s.id} · ${s.entries} entries${s.readOnly ? ' · read-only' : ''}` }),
  ]);
}

function render(): void {
  const parts: Node[] = [];
  if (!state.received) {
    parts.push(el('p', { className: 'muted', text: 'Loading session…' }));
    replaceChildren(root(), parts);
    return;
  }
  if (state.session) parts.push(sessionHeader(state.session));
  if (state.error) parts.push(banner('error', state.error));
  if (state.session?.readOnly) parts.push(banner('warning', state.session.readOnlyReason ?? 'This chat is open read-only.'));
  if (state.session && state.session.problems > 0) parts.push(banner('info', `${state.session.problems} damaged line(s) were skipped while loading this chat.`));
  if (state.settings?.warning) parts.push(banner('warning', state.settings.warning));
  if (state.notice) parts.push(banner(state.notice.level, state.notice.text));

  if (state.budget) {
    parts.push(renderBudget(state.budget, host.state().detailsOpen, (open) => host.updateState({ detailsOpen: open })));
  } else if (!state.error) {
    parts.push(el('p', { className: 'muted', text: 'No budget yet.' }));
  }

  parts.push(
    el('div', { className: 'actions', attrs: { role: 'toolbar', 'aria-label': 'Capsule actions' } }, [
      button('Compact Context', 'compactContext', 'Compact the context now'),
      button('New Chat', 'newChat', 'Start a new chat'),
      button('Budget Report', 'showBudget', 'Write the budget report to the Capsule output'),
      button('Refresh', 'refresh', 'Reload the chat from disk'),
    ]),
  );
  if (state.settings) {
    const s = state.settings;
    const auto = !s.softTriggersEnabled ? 'auto-compact off (hard-limit protection on)' : s.autoCompact ? 'auto-compact on' : 'auto-compact off';
    parts.push(el('footer', { className: 'muted', text: `${s.modelId} · ${s.provider} · ${auto}` }));
  }
  replaceChildren(root(), parts);
}

function onMessage(msg: HostToWebview): void {
  switch (msg.type) {
    case 'snapshot':
      state.received = true;
      state.session = msg.session;
      state.budget = msg.budget;
      state.settings = msg.settings;
      state.error = msg.error;
      state.notice = undefined;
      break;
    case 'budget':
      state.budget = msg.budget;
      break;
    case 'notice':
      state.notice = { level: msg.level, text: msg.text };
      break;
    default: {
      const _exhaustive: never = msg;
      return _exhaustive;
    }
  }
  render();
}

function isHostMessage(data: unknown): data is HostToWebview {
  return typeof data === 'object' && data !== null && typeof (data as { type?: unknown }).type === 'string';
}

function reportError(message: string, stack?: string): void {
  host.post({ type: 'webviewError', message: message.slice(0, 4000), stack: stack?.slice(0, 16000) });
}

window.addEventListener('error', (e) => reportError(e.message, e.error instanceof Error ? e.error.stack : undefined));
window.addEventListener('unhandledrejection', (e) => reportError(String(e.reason)));
window.addEventListener('message', (e: MessageEvent<unknown>) => {
  if (!isHostMessage(e.data)) return;
  try {
    onMessage(e.data);
  } catch (err) {
    reportError(err instanceof Error ? err.message : String(err), err instanceof Error ? err.stack : undefined);
  }
});

render();
host.post({ type: 'ready' });
