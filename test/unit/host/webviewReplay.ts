// Applies host messages to an item list the way the webview's transcript list does, so host tests can compare what it shows.
import type { HostToWebview, TranscriptItem } from '../../../src/protocol/messages.js';

/** The transcript the webview holds after `messages` (from the last snapshot on). */
export function replayItems(messages: readonly HostToWebview[]): TranscriptItem[] {
  let items: TranscriptItem[] = [];
  const at = (id: string): number => items.findIndex((i) => i.id === id);
  const put = (item: TranscriptItem): void => {
    const i = at(item.id);
    if (i >= 0) items[i] = item;
    else items.push(item);
  };
  for (const m of messages) {
    switch (m.type) {
      case 'snapshot':
        items = [...m.transcript.items];
        break;
      case 'itemsAppended':
        for (const item of m.items) put(item);
        break;
      case 'itemUpdated':
        put(m.item);
        break;
      case 'streamDelta': {
        const i = at(m.itemId);
        const item = items[i];
        if (item?.kind === 'assistant') items[i] = { ...item, markdown: item.markdown + m.text };
        else items.push({ id: m.itemId, kind: 'assistant', markdown: m.text, streaming: true });
        break;
      }
      case 'streamEnd': {
        const i = at(m.itemId);
        const item = items[i];
        if (item?.kind !== 'assistant') break;
        items[i] = m.item ?? { ...item, markdown: m.markdown ?? item.markdown, streaming: false };
        break;
      }
      default:
        break;
    }
  }
  return items;
}
