// One transcript item → its DOM: user and assistant messages, collapsed tool calls, cards, checkpoints, errors and notes.
import type { AssistantItem, CheckpointItem, ToolItem, TranscriptItem } from '../src/protocol/messages.js';
import { branchSwitcher } from './branchSwitcher.js';
import { renderCompactionCard } from './compactionCard.js';
import { renderErrorCard } from './errorCard.js';
import { subagentCard } from './subagentCard.js';
import { button, el, icon, srOnly } from './dom.js';
import { duration } from '../src/protocol/format.js';
import { renderMarkdown } from './markdown.js';
import { linkifyText } from './pathLinks.js';
import { CHECKPOINT_KINDS, TOOL_STATES } from './words.js';

function article(item: TranscriptItem, children: readonly Node[], label: string): HTMLElement {
  return el('article', { className: `item item-${item.kind}`, attrs: { 'data-id': item.id, 'aria-label': label } }, children);
}

function who(iconName: string, name: string, extra: readonly Node[] = []): HTMLElement {
  return el('div', { className: 'who' }, [icon(iconName), el('span', { className: 'who-name', text: name }), ...extra]);
}

/** The body of an assistant item; re-rendered alone while it streams. */
export function assistantBody(item: AssistantItem): HTMLElement {
  const body = el('div', { className: `markdown${item.streaming ? ' streaming' : ''}` });
  body.appendChild(renderMarkdown(item.markdown, item.streaming ? undefined : item.links));
  if (item.streaming && item.markdown.length === 0) body.appendChild(el('span', { className: 'muted', text: 'Thinking…' }));
  return body;
}

function toolView(item: ToolItem): HTMLElement[] {
  if (item.subagent !== undefined) return subagentCard(item, item.subagent);
  const st = TOOL_STATES[item.status];
  const links = new Set(item.links ?? []);
  const summary = el('summary', {}, [
    icon(st.icon, `status status-${item.status}${item.status === 'running' ? ' codicon-modifier-spin' : ''}`),
    el('span', { className: 'tool-name', text: item.name }),
    el('span', { className: 'tool-args', attrs: { title: item.argsSummary } }, [linkifyText(item.argsSummary, links)]),
    el('span', { className: 'tool-meta', text: item.durationMs !== undefined ? duration(item.durationMs) : '' }),
    srOnly(`, ${st.label}`),
  ]);
  const body =
    item.resultPreview !== undefined
      ? el('pre', { className: 'tool-result' }, [linkifyText(item.resultPreview, links)])
      : el('p', { className: 'muted', text: item.status === 'running' ? 'Running…' : 'No output.' });
  const row = el('details', { className: `tool status-${item.status}` }, [summary, body]);
  if (item.diff !== true) return [row];
  // Outside the <details>, so the action is one Tab stop away without expanding the row.
  return [
    row,
    el('div', { className: 'tool-actions' }, [
      button({ icon: 'diff', text: 'Show diff', label: `Show the diff of this ${item.name} call`, action: 'show-diff', className: 'show-diff' }),
    ]),
  ];
}

function checkpointView(item: CheckpointItem): HTMLElement[] {
  return [
    // The id is a detail (hover); the row says what kind of checkpoint it is and its note.
    el('div', { className: 'checkpoint-row', attrs: { title: `Checkpoint ${item.checkpointId}` } }, [
      icon('bookmark'),
      el('span', { text: CHECKPOINT_KINDS[item.checkpointKind] }),
      el('span', { className: 'note', text: item.note ?? '' }),
      button({ icon: 'discard', label: 'Rewind to this checkpoint', action: 'rewind', data: { ck: item.checkpointId } }),
    ]),
  ];
}

/** A message's hover actions; ephemeral echoes (commands, unsent text) have no entry to act on. */
function userActions(id: string): HTMLElement[] {
  if (id.startsWith('x_')) return [];
  return [
    button({ icon: 'discard', label: 'Rewind to before this message (conversation and files)', action: 'message-rewind', className: 'item-action' }),
    button({ icon: 'edit', label: 'Edit and resend: a new branch from here', action: 'message-edit', className: 'item-action' }),
    button({ icon: 'fold-up', label: 'Compact up to here: summarize everything before this message', action: 'message-compact', className: 'item-action' }),
  ];
}

export function renderItem(item: TranscriptItem): HTMLElement {
  switch (item.kind) {
    case 'user':
      return article(
        item,
        [
          who('account', 'You', userActions(item.id)),
          el('div', { className: 'user-text' }, [linkifyText(item.text, new Set(item.links ?? []))]),
          ...(item.images === undefined
            ? []
            : [
                el('div', { className: 'user-images' }, [icon('file-media'), el('span', { text: `with ${item.images} image${item.images === 1 ? '' : 's'}` })]),
              ]),
          ...(item.branch ? [branchSwitcher(item.branch)] : []),
        ],
        'You said',
      );
    case 'assistant':
      return article(
        item,
        [
          who('sparkle', item.model ?? 'Assistant', [
            button({ icon: 'copy', label: 'Copy answer', action: 'copy-item', className: 'item-action' }),
            button({ icon: 'refresh', label: 'Retry: ask again on a new branch', action: 'retry', className: 'item-action retry' }),
          ]),
          assistantBody(item),
          ...(item.branch ? [branchSwitcher(item.branch)] : []),
        ],
        'Assistant answer',
      );
    case 'tool':
      return article(
        item,
        toolView(item),
        item.subagent === undefined ? `Tool ${item.name}, ${TOOL_STATES[item.status].label}` : `Subagent ${item.subagent.description}, ${item.subagent.status}`,
      );
    case 'compaction':
      return article(item, [renderCompactionCard(item.card)], 'Compaction');
    case 'checkpoint':
      return article(item, checkpointView(item), `${CHECKPOINT_KINDS[item.checkpointKind]} ${item.checkpointId}`);
    case 'error':
      if (item.fault !== undefined) return article(item, renderErrorCard({ ...item, fault: item.fault }), `Error: ${item.fault.title}`);
      return article(item, [icon('error'), el('span', { text: item.text })], 'Error');
    case 'info':
      return article(item, [icon('info'), infoBody(item.text)], 'Note');
    case 'loop':
      return article(
        item,
        [
          icon('warning'),
          el('span', { text: item.text }),
          el('div', { className: 'loop-actions' }, [
            button({ text: 'Continue', label: `Let the agent continue after repeating ${item.toolName}`, action: 'loop-continue' }),
            button({ text: 'Stop', label: 'Leave the turn stopped', action: 'loop-stop' }),
          ]),
        ],
        'The agent repeated a tool call',
      );
    default: {
      const _exhaustive: never = item;
      return _exhaustive;
    }
  }
}

/**
 * A note's text; a block of "  Label:  value" lines (the /budget Context Stats) becomes a two-column table with
 * its first line as the caption, other multi-line notes keep their lines.
 */
function infoBody(text: string): HTMLElement {
  const lines = text.split('\n');
  const rows = lines.map((l) => /^\s{2}([^:]{1,40}):\s+(.*)$/.exec(l));
  const tableLines = rows.filter((r) => r !== null).length;
  if (lines.length > 2 && tableLines >= lines.filter((l) => l.trim() !== '').length - 1) {
    const table = el('table', { className: 'info-table' });
    const head = lines[0]?.trim() ?? '';
    if (rows[0] === null && head !== '') table.appendChild(el('caption', { text: head.replace(/:$/, '') }));
    const body = el('tbody');
    for (const r of rows)
      if (r !== null) body.appendChild(el('tr', {}, [el('th', { text: r[1] ?? '', attrs: { scope: 'row' } }), el('td', { text: r[2] ?? '' })]));
    table.appendChild(body);
    return table;
  }
  return el('span', { className: lines.length > 1 ? 'info-text multiline' : 'info-text', text });
}
