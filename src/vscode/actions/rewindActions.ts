// What rewind, edit & resend, retry, undo/redo of a compaction, compact up to here and user checkpoints do in the editor: dialogs, then the facade.
import * as vscode from 'vscode';
import { spanSinceCapsule } from '../../engine/compaction/cut.js';
import type { CheckpointKind, Entry } from '../../engine/transcript/schema.js';
import type { RewindMode, RewindPreview } from '../../node/sessionRewind.js';
import type { RefusedRecord } from '../../node/snapshots/changeLog.js';
import type { FilePlan } from '../../node/snapshots/restore.js';
import { recordCheckpoint, sendText, workspaceRoot } from './chatActions.js';
import type { Services } from './services.js';

type Host = Pick<Services, 'chat' | 'out'>;

const MODE_LABELS: Readonly<Record<RewindMode, string>> = { both: 'Conversation and Files', conversation: 'Conversation Only', files: 'Files Only' };
const SHOWN_FILES = 12;

function shown(path: string): string {
  const root = workspaceRoot();
  return root !== undefined && path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

function fileLine(f: FilePlan): string {
  const what = f.action === 'delete' ? 'removed (created later)' : f.action === 'recreate' ? 'recreated (deleted later)' : 'restored';
  const changed = !f.editedOutside
    ? ''
    : f.unknownContent === true
      ? 'changed since: its last content was not kept (too large, or the store was full), so Capsule cannot tell whether it was edited'
      : 'edited outside Capsule since';
  const notes = [changed, f.unavailable === undefined ? '' : `cannot be restored: ${f.unavailable}`].filter((x) => x !== '');
  return `• ${shown(f.path)} — ${what}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

function refusedLines(refused: readonly RefusedRecord[]): string[] {
  if (refused.length === 0) return [];
  const lines = [
    '',
    `Never applied: ${refused.length} change-log record${refused.length === 1 ? ' is' : 's are'} refused:`,
    ...refused.slice(0, SHOWN_FILES).map((r) => `• ${shown(r.path)} — ${r.reason}`),
  ];
  if (refused.length > SHOWN_FILES) lines.push(`… and ${refused.length - SHOWN_FILES} more`);
  return lines;
}

/** The confirmation's text: where the chat goes, which files change, and what cannot come back. */
function rewindDetail(p: RewindPreview): string {
  const lines: string[] = [];
  lines.push(
    p.point.message
      ? 'The chat goes back to just before this message; the message returns to the composer to edit and send again.'
      : 'The chat continues from that moment on a new branch; the model sees exactly what it saw then.',
  );
  lines.push('Nothing is deleted: later messages stay on their branch in the chat file.');
  if (p.files.length === 0) lines.push(p.snapshots ? 'No workspace files differ from that moment.' : 'This chat keeps no file snapshots.');
  else {
    lines.push('', `Files that differ from that moment (${p.files.length}):`, ...p.files.slice(0, SHOWN_FILES).map(fileLine));
    if (p.files.length > SHOWN_FILES) lines.push(`… and ${p.files.length - SHOWN_FILES} more`);
    lines.push('', '"Conversation Only" keeps the files as they are and tells the model which ones differ.');
  }
  lines.push(...refusedLines(p.refused));
  return lines.join('\n');
}

/** Asks for the mode (and, for files edited outside, whether to overwrite them); undefined when the user backs out. */
async function askMode(p: RewindPreview, title: string): Promise<{ readonly mode: RewindMode; readonly overwriteOutside: boolean } | undefined> {
  const modes: RewindMode[] = p.files.length > 0 ? ['both', 'conversation', 'files'] : ['conversation'];
  const labels = p.files.length > 0 ? modes.map((m) => MODE_LABELS[m]) : ['Rewind'];
  const answer = await vscode.window.showWarningMessage(title, { modal: true, detail: rewindDetail(p) }, ...labels);
  const at = answer === undefined ? -1 : labels.indexOf(answer);
  const mode = modes[at];
  if (mode === undefined) return undefined;
  const outside = mode === 'conversation' ? [] : p.files.filter((f) => f.editedOutside && f.unavailable === undefined);
  if (outside.length === 0) return { mode, overwriteOutside: false };
  const keep = 'Keep Their Changes';
  const over = await vscode.window.showWarningMessage(
    `${outside.length} file${outside.length === 1 ? ' has' : 's have'} changed since Capsule recorded ${outside.length === 1 ? 'it' : 'them'}. Overwrite ${outside.length === 1 ? 'it' : 'them'}?`,
    {
      modal: true,
      detail: [
        ...outside
          .slice(0, SHOWN_FILES)
          .map((f) => `• ${shown(f.path)}${f.unknownContent === true ? ' (its last content was not kept: Capsule cannot tell whether it was edited)' : ''}`),
        '',
        "Overwrite copies each one to the chat's snapshot folder first (kept/<time>/); the message after the rewind says where.",
      ].join('\n'),
    },
    'Overwrite',
    keep,
  );
  if (over === undefined) return undefined;
  return { mode, overwriteOutside: over === 'Overwrite' };
}

/** A running turn must stop first; the user says whether to stop it. */
async function stopFirst(host: Host, what: string): Promise<boolean> {
  if (!host.chat.working) return true;
  const answer = await vscode.window.showWarningMessage(`A turn is running. Stop it and ${what}?`, { modal: true }, 'Stop and Continue');
  if (answer !== 'Stop and Continue') return false;
  host.chat.preempt();
  return true;
}

/**
 * Rewind to a checkpoint or a message (tree, chat, palette): a modal with the files that would change, then the
 * facade's rewind in the work queue; the message it went back before returns to the composer. True when done.
 */
export async function rewind(
  host: Host,
  ref: string,
  opts: { readonly confirm?: boolean; readonly then?: (text: string | undefined) => void } = {},
): Promise<boolean> {
  const chat = host.chat.open;
  if (!chat) {
    host.out.notify('error', 'No chat is open.');
    return false;
  }
  if (chat.readOnly) {
    host.out.notify('error', `This chat is read-only (${chat.readOnlyReason ?? 'open in another window'}); it cannot be rewound here.`);
    return false;
  }
  if (!(await stopFirst(host, 'rewind'))) return false;
  const preview = await host.chat.previewRewind(ref);
  if (!preview.ok) {
    host.out.notify('error', preview.error);
    return false;
  }
  const title = preview.point.message
    ? `Rewind to before "${preview.point.message.text.slice(0, 60)}${preview.point.message.text.length > 60 ? '…' : ''}"?`
    : `Rewind this chat to ${preview.point.checkpointId ?? ref}?`;
  const choice = opts.confirm === false ? { mode: 'both' as const, overwriteOutside: false } : await askMode(preview, title);
  if (choice === undefined) return false;
  host.chat.preempt();
  let done = false;
  await host.chat.task('rewind', async () => {
    const r = await host.chat.rewind(chat, ref, choice);
    if (r === undefined) return;
    done = true;
    const skipped = [...(r.files?.skipped ?? []), ...(r.files?.refused ?? [])];
    if (skipped.length > 0) host.out.notify('warning', `Not restored: ${skipped.map((s) => `${shown(s.path)} (${s.reason})`).join('; ')}`.slice(0, 900));
    const kept = r.files?.kept ?? [];
    if (kept.length > 0)
      host.out.notify('info', `Overwritten after keeping your version: ${kept.map((k) => `${shown(k.path)} → ${k.copy}`).join('; ')}`.slice(0, 900));
    if (opts.then) opts.then(r.point.message?.text);
    else if (r.point.message && r.mode !== 'files') host.out.fillComposer(r.point.message.text);
  });
  return done;
}

/** Retry: rewind to before the message (files too) and send it again: a new branch, the old answer stays on its own. */
export async function retry(host: Services, userEntryId: string): Promise<void> {
  await rewind(host, userEntryId, {
    then: (text) => {
      if (text !== undefined) sendText(host, text);
    },
  });
}

/**
 * The ‹ › switcher (docs/rewind.md#branches): the leaf moves to the newest entry of the branch that starts at
 * `entryId`, in the work queue like a rewind; the files stay, and the model is told which differ. A running turn (or
 * compaction) must stop first; the compaction then appends nothing, since its leaf moved.
 */
export async function switchBranch(host: Host, entryId: string): Promise<void> {
  const chat = host.chat.open;
  if (!chat) return host.out.notify('error', 'No chat is open.');
  if (chat.readOnly)
    return host.out.notify('error', `This chat is read-only (${chat.readOnlyReason ?? 'open in another window'}); its branches cannot be switched here.`);
  if (!(await stopFirst(host, 'switch branches'))) return;
  await host.chat.task('switchBranch', async () => {
    // A second click that arrived before the first switch was shown asks for the branch already shown.
    if (chat.tree.branch().some((e) => e.id === entryId)) return;
    const r = await host.chat.switchBranch(chat, entryId);
    const differ = r?.differ ?? [];
    if (differ.length > 0) {
      const names = differ
        .slice(0, 3)
        .map((f) => shown(f.path))
        .join(', ');
      host.out.info(
        `Files stay as they are: ${names}${differ.length > 3 ? ` and ${differ.length - 3} more` : ''} ${differ.length === 1 ? 'differs' : 'differ'} from this branch, and the model is told so. Rewind to a message of this branch to bring its files back.`,
      );
    }
  });
}

/** Undo or redo one compaction, in the work queue after what runs. */
export async function undoCompaction(host: Host, checkpointId: string, action: 'undo' | 'redo'): Promise<void> {
  if (!(await stopFirst(host, action === 'undo' ? 'undo the compaction' : 'redo the compaction'))) return;
  await host.chat.task(action === 'undo' ? 'undoCompaction' : 'redoCompaction', async () => {
    if (await host.chat.undoCompaction(checkpointId, action)) {
      host.out.info(
        action === 'undo'
          ? 'Compaction undone: the next request is built as if its summary did not exist. Redo it from its card.'
          : 'Compaction redone: its summary is in force again.',
      );
    }
  });
}

/** Why "compact up to here" cannot cut before this message, in the user's words; undefined when it can. */
function compactUpToRefusal(branch: readonly Entry[], userEntryId: string): string | undefined {
  if (!branch.some((e) => e.id === userEntryId)) return 'Not compacted: that message is on another branch. Switch to its branch first.';
  if (!spanSinceCapsule(branch).span.some((e) => e.id === userEntryId))
    return 'Not compacted: the latest compaction already summarizes that message. Choose a later message.';
  return undefined;
}

/** "Compact up to here": a user compaction that cuts right before the message; the barrier's cards and lines show it like any other. */
export async function compactUpTo(host: Pick<Services, 'chat' | 'out'>, userEntryId: string): Promise<void> {
  const a = host.chat.open;
  if (a?.online !== true) {
    host.out.notify('error', host.chat.problem ?? 'Set up a model first.');
    return;
  }
  await host.chat.task('compactUpTo', async (signal) => {
    // Said here, once, in words: the engine plans from the tail after the capsule in force, where an older message is "not on the branch".
    const why = compactUpToRefusal(a.branch(), userEntryId);
    if (why !== undefined) {
      host.out.fail(why);
      return;
    }
    // Whatever the outcome, the barrier strip says it once, in words (projection/plainWords.ts); a second line here said it twice.
    await a.compactUpTo(userEntryId, { signal });
  });
}

/** The palette's Create Checkpoint, Mark Milestone and Mark Plan Pivot: the slash commands' action, queued after what runs. */
export async function createCheckpoint(host: Pick<Services, 'chat' | 'out'>, kind: CheckpointKind, note?: string): Promise<void> {
  await host.chat.task('checkpoint', () => recordCheckpoint(host, kind, note));
}
