// What the message list's buttons ask for: the actions a list is built with, and the one dispatch from a clicked button to them.
import type { TranscriptItem } from '../src/protocol/messages.js';
import { el } from './dom.js';
import type { ScrollAnchor } from './vscodeApi.js';

export interface ListActions {
  copy(text: string, from: HTMLElement): void;
  /** A code block's Insert at Cursor, Apply to File, New File. */
  codeBlock(action: 'insert' | 'apply' | 'newFile', code: string, language: string | undefined): void;
  openLink(href: string): void;
  openFile(path: string, line?: number, column?: number): void;
  /** "Show diff" on an applied edit's row (the tool item's id). */
  showDiff(itemId: string): void;
  /** A subagent card's transcript, one page (1 = oldest). */
  subagentTranscript(itemId: string, page: number): void;
  viewCapsule(checkpointId: string, opener: HTMLElement): void;
  rewind(checkpointId: string): void;
  /** A user message's action, or retry of the answer (sent with the message it answered). */
  messageAction(action: 'rewind' | 'edit' | 'retry' | 'compactUpTo', entryId: string): void;
  compactionAction(action: 'undo' | 'redo', checkpointId: string): void;
  /** The ‹ › switcher: show the branch that starts at `entryId`. */
  switchBranch(entryId: string): void;
  /** The doom-loop card's "Continue": the turn goes on as a new message. */
  continueLoop(): void;
  loadOlder(beforeId: string): void;
  /** The reading position changed (null: following the newest). */
  scrolled(anchor: ScrollAnchor | null): void;
}

/** What the list needs to know about its items to route a click. */
export interface ListLookup {
  items(): readonly TranscriptItem[];
  get(id: string): TranscriptItem | undefined;
  /** A switch was asked for from `btn`: the list keeps that place (and focus) when the new branch arrives. */
  switching(targetId: string, btn: HTMLElement): void;
}

/** Routes a delegated click on `button[data-action=name]` to its action. */
export function dispatchAction(name: string, btn: HTMLElement, list: ListLookup, actions: ListActions): void {
  const ck = btn.dataset.ck ?? '';
  const itemId = (): string => btn.closest('[data-id]')?.getAttribute('data-id') ?? '';
  if (name === 'view-capsule') actions.viewCapsule(ck, btn);
  else if (name === 'show-diff') actions.showDiff(itemId());
  else if (name === 'subagent-page') {
    const page = Number(btn.dataset.page);
    if (Number.isInteger(page) && page >= 1) actions.subagentTranscript(itemId(), page);
  } else if (name === 'rewind') actions.rewind(ck);
  else if (name === 'undo-compaction' || name === 'redo-compaction') actions.compactionAction(name === 'undo-compaction' ? 'undo' : 'redo', ck);
  else if (name === 'branch-switch') {
    const target = btn.dataset.target;
    if (target === undefined || target === '') return;
    list.switching(target, btn);
    actions.switchBranch(target);
  } else if (name.startsWith('message-') || name === 'retry') {
    const id = itemId();
    const items = list.items();
    const at = items.findIndex((i) => i.id === id);
    // Retry re-asks the message the answer belongs to: the nearest user message above it.
    const user =
      name === 'retry'
        ? items
            .slice(0, at)
            .reverse()
            .find((i) => i.kind === 'user' && !i.id.startsWith('x_'))
        : items[at];
    if (user === undefined || user.kind !== 'user') return;
    const action = name === 'retry' ? 'retry' : name === 'message-rewind' ? 'rewind' : name === 'message-edit' ? 'edit' : 'compactUpTo';
    actions.messageAction(action, user.id);
  } else if (name === 'loop-continue' || name === 'loop-stop') {
    // Either answer settles the card; only Continue asks the agent for more.
    btn.closest('.loop-actions')?.replaceChildren(el('span', { className: 'muted', text: name === 'loop-continue' ? 'Continued.' : 'Stopped.' }));
    if (name === 'loop-continue') actions.continueLoop();
  } else if (name === 'copy-item') {
    const item = list.get(itemId());
    if (item?.kind === 'assistant') actions.copy(item.markdown, btn);
  }
}
