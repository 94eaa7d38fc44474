// The row above the first rendered message: loading older ones, a button to load them, or the start of the chat.
import { button, el, icon } from './dom.js';

export interface TopRowState {
  readonly loading: boolean;
  readonly hasMore: boolean;
  readonly empty: boolean;
}

export function topRow(s: TopRowState, loadEarlier: () => void): Node[] {
  if (s.loading)
    return [
      el('div', { className: 'muted', attrs: { role: 'status' } }, [
        icon('loading', 'codicon-modifier-spin'),
        el('span', { text: ' Loading earlier messages…' }),
      ]),
    ];
  if (s.hasMore) {
    // Scrolling to the top loads them too; the button is the keyboard's way there.
    const more = button({ icon: 'arrow-up', text: 'Load earlier messages', label: 'Load earlier messages' });
    more.addEventListener('click', loadEarlier);
    return [more];
  }
  return [el('div', { className: 'muted', text: s.empty ? 'No messages yet · type / for commands, @ for files' : 'Beginning of the chat' })];
}
