// The banners above the transcript: loading, the host's error, read-only, skipped damaged lines, a settings warning and one dismissible notice.
import type { SessionView, SettingsView } from '../src/protocol/messages.js';
import { button, el } from './dom.js';

export interface Notice {
  readonly level: 'info' | 'warning' | 'error';
  readonly text: string;
  /** Said during a turn (e.g. "retrying, attempt 2 of 4"); it goes when the turn ends. */
  readonly transient?: boolean;
  /** Outlives the next snapshot (only its × takes it away). */
  readonly keep?: boolean;
}

function banner(level: Notice['level'], text: string, dismiss?: () => void): HTMLElement {
  const b = el('div', { className: `banner ${level}`, attrs: { role: level === 'error' ? 'alert' : 'status' } }, [el('span', { text })]);
  if (dismiss) {
    const x = button({ icon: 'close', label: 'Dismiss' });
    x.addEventListener('click', dismiss);
    b.appendChild(x);
  }
  return b;
}

/** What the banners show, as the last snapshot and notices left it; `render` draws it. */
export class Banners {
  readonly element = el('div', { className: 'banners' });
  received = false;
  session: SessionView | null = null;
  settings: SettingsView | null = null;
  error: string | undefined;
  notice: Notice | undefined;

  /** `dismissed`: after the notice's × (focus goes back to the message box). */
  constructor(private readonly dismissed: () => void) {}

  render(): void {
    const parts: Node[] = [];
    if (!this.received) parts.push(el('p', { className: 'muted', text: 'Loading session…' }));
    const s = this.session;
    if (this.error) parts.push(banner('error', this.error));
    if (s?.readOnly) parts.push(banner('warning', s.readOnlyReason ?? 'This chat is open read-only.'));
    if (s && s.problems > 0) parts.push(banner('info', `${s.problems} damaged line(s) were skipped while loading this chat.`));
    if (this.settings?.warning) parts.push(banner('warning', this.settings.warning));
    if (this.notice) {
      parts.push(
        banner(this.notice.level, this.notice.text, () => {
          this.notice = undefined;
          this.render();
          this.dismissed();
        }),
      );
    }
    this.element.replaceChildren(...parts);
  }
}
