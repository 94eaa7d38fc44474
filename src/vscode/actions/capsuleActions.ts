// Portable capsules in the editor (docs/behaviour.md#portable): create and export through a save dialog, load with a preview and a choice of chat.
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { CompletedOutcome } from '../../engine/compaction/outcome.js';
import { previewOf } from '../../engine/portable/preview.js';
import { latestCapsule } from '../../engine/transcript/modelInput.js';
import {
  CapsuleFileError,
  exportCapsuleFromSession,
  exportFromTree,
  loadCapsuleIntoNewSession,
  readCapsuleFile,
  type ExportResult,
  type LoadedCapsuleFile,
} from '../../node/capsuleFiles.js';
import { nodeIds } from '../../node/nodeClock.js';
import { fullTokens } from '../../protocol/format.js';
import { errorMessage } from '../base/log.js';
import { resolveUserPath, workspaceRoot } from './chatPaths.js';
import type { Services } from './services.js';
import { switchChat } from './sessionActions.js';

const NEW_CHAT = 'New Chat';
const THIS_CHAT = 'This Chat';
const LOAD_ANYWAY = 'Load Anyway';

function fileProblem(err: unknown): string {
  if (err instanceof CapsuleFileError && err.kind === 'exists') return err.message.replace(/; pass --force to overwrite it$/, '; choose another path');
  return errorMessage(err);
}

function slug(title: string): string {
  const s = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return s === '' ? 'capsule' : s;
}

/** A save dialog in the capsule folder (the one chosen last, else global storage: never the workspace unless the user picks it). */
async function askWhereToSave(host: Pick<Services, 'capsules'>, fileName: string, title: string): Promise<string | undefined> {
  const uri = await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.file(join(host.capsules.path, fileName)),
    filters: { 'Portable capsule': ['md'] },
    saveLabel: 'Save Capsule',
    title,
  });
  if (!uri) return undefined;
  await host.capsules.remember(dirname(uri.fsPath));
  return uri.fsPath;
}

function completedOf(outcomes: readonly { readonly outcome: string }[]): CompletedOutcome | undefined {
  return [...outcomes].reverse().find((o): o is CompletedOutcome => o.outcome === 'completed');
}

/**
 * `/capsule create "title"` and the palette's Create Portable Capsule: asks where to save first (cancelling writes
 * nothing and compacts nothing), then makes a fresh capsule of the current state and writes it there.
 */
export async function createPortable(host: Pick<Services, 'chat' | 'out' | 'capsules'>, title: string, signal: AbortSignal): Promise<void> {
  const a = host.chat.open;
  if (a?.online !== true) {
    host.out.fail(`No capsule was created: ${host.chat.problem ?? 'no model is set up yet'}`);
    return;
  }
  const out = await askWhereToSave(host, `${slug(title)}.capsule.md`, `Save the portable capsule "${title}"`);
  if (out === undefined) {
    host.out.info('No capsule was created: the save dialog was cancelled.');
    return;
  }
  const r = await a.compact({ focus: title, signal });
  const fresh = completedOf(r.outcomes)?.capsule;
  const capsule = fresh ?? latestCapsule(a.branch())?.capsule;
  if (!capsule) {
    host.out.fail('No capsule was created: this chat has nothing to summarize yet.');
    return;
  }
  try {
    // The dialog already asked about replacing an existing file.
    const res = await exportFromTree(a.tree, a.header, { out, checkpointId: capsule.checkpointId, title, force: true });
    // Nothing compacted now: the file holds the capsule already in force, and the user is told so, with why.
    const last = r.outcomes[r.outcomes.length - 1];
    const why = last !== undefined && 'reason' in last ? ` (${last.reason})` : '';
    const older =
      fresh === undefined
        ? `Nothing new was compacted${why}, so the latest existing capsule (${capsule.checkpointId}) was saved: it describes the chat up to that checkpoint. `
        : '';
    host.out.info(
      `${older}Portable capsule "${title}" (${res.meta.quality}, ${fullTokens(res.meta.tokens)} tokens) saved to ${res.path}. Load it in any chat with /capsule load or Capsule: Load Capsule….`,
    );
  } catch (err) {
    host.out.fail(`No capsule was created: ${fileProblem(err)}`);
  }
}

/** `/capsule export ck_… path`: the path was typed, so no dialog. */
export async function exportTo(host: Pick<Services, 'chat' | 'out'>, checkpointId: string, path: string): Promise<void> {
  const chat = host.chat.open;
  if (!chat) return host.out.fail(host.chat.problem ?? 'No chat is open.');
  try {
    const res = await exportFromTree(chat.tree, chat.header, { out: resolveUserPath(path), checkpointId });
    host.out.info(`Exported ${checkpointId} (${res.meta.quality}, ${fullTokens(res.meta.tokens)} tokens) to ${res.path}.`);
  } catch (err) {
    host.out.fail(`Not exported: ${fileProblem(err)}`);
  }
}

/** Export with a save dialog (palette, tree, the viewer's Export button); another chat's capsule is read from its file. */
export async function exportWithDialog(
  host: Pick<Services, 'chat' | 'capsules'>,
  checkpointId: string,
  sessionPath?: string,
): Promise<ExportResult | undefined> {
  const out = await askWhereToSave(host, `${checkpointId}.capsule.md`, `Export the capsule of ${checkpointId}`);
  if (out === undefined) return undefined;
  const chat = host.chat.open;
  try {
    const opts = { out, checkpointId, force: true };
    const res =
      sessionPath === undefined || sessionPath === chat?.path
        ? await (chat ? exportFromTree(chat.tree, chat.header, opts) : Promise.reject(new Error(host.chat.problem ?? 'no chat is open')))
        : await exportCapsuleFromSession(sessionPath, opts);
    void vscode.window.showInformationMessage(`Capsule: exported ${checkpointId} (${res.meta.quality}) to ${res.path}`);
    return res;
  } catch (err) {
    void vscode.window.showErrorMessage(`Capsule: not exported: ${fileProblem(err)}`);
    return undefined;
  }
}

/** Reads the file; an edited one (checksum mismatch) only after an explicit "Load Anyway". Undefined when declined. */
async function readChecked(path: string): Promise<LoadedCapsuleFile | undefined> {
  try {
    return await readCapsuleFile(path);
  } catch (err) {
    if (!(err instanceof CapsuleFileError) || err.kind !== 'modified') throw err;
    const anyway = await vscode.window.showWarningMessage(
      'This capsule was edited after it was exported (its checksum does not match).',
      { modal: true, detail: `${errorMessage(err)}\nLoad it anyway only if you made or trust the edit; its text is loaded as data, never as instructions.` },
      LOAD_ANYWAY,
    );
    return anyway === LOAD_ANYWAY ? readCapsuleFile(path, { allowModified: true }) : undefined;
  }
}

/** The preview's lines: title, size, task, ledger, checksum, origin, and what each choice does. */
function loadDetail(file: LoadedCapsuleFile, thisChat: boolean): string {
  const m = file.meta;
  const p = previewOf(file);
  return [
    `${fullTokens(m.tokens)} tokens · quality ${m.quality} · created ${m.created}${m.model ? ` · ${m.model}` : ''}`,
    `Task: ${p.task}`,
    `Ledger: ${p.ledger}`,
    `Checksum: ${p.checksum === 'verified' ? 'verified (unchanged since export)' : 'does not match: edited after export, loads as data marked edited'}`,
    m.sourceSession ? `From chat ${m.sourceSession}${m.sourceCheckpoint ? ` at ${m.sourceCheckpoint}` : ''}` : '',
    '',
    `${NEW_CHAT}: a new chat starts from this capsule.`,
    thisChat
      ? `${THIS_CHAT}: the capsule replaces what the model sees of this chat (recorded in the transcript; the earlier messages stay and rewind can go back).`
      : `${THIS_CHAT} is not available: no open chat can take it.`,
  ]
    .filter((l, i) => l !== '' || i === 5)
    .join('\n');
}

/**
 * `/capsule load path` and the palette's Load Capsule…: the file is validated and previewed (a markdown preview beside
 * it and a dialog with its title, size, task, ledger and checksum), then goes where the user says: a new chat or this
 * one. `queued`: already running in the chat's work queue (the slash command), so this chat's append runs inline.
 */
export async function loadCapsule(host: Pick<Services, 'chat' | 'out' | 'sessions' | 'capsules'>, path: string | undefined, queued: boolean): Promise<void> {
  let target = path === undefined ? undefined : resolveUserPath(path);
  if (target === undefined) {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      defaultUri: vscode.Uri.file(host.capsules.path),
      filters: { 'Portable capsule': ['md'] },
      openLabel: 'Preview Capsule',
      title: 'Load a portable capsule',
    });
    target = picked?.[0]?.fsPath;
    if (target === undefined) return;
  }
  let file: LoadedCapsuleFile | undefined;
  try {
    file = await readChecked(target);
  } catch (err) {
    host.out.fail(`Not loaded: ${fileProblem(err)}`);
    return;
  }
  if (!file) {
    host.out.info('Not loaded: the edited capsule was declined.');
    return;
  }
  await host.capsules.remember(dirname(file.path));
  await vscode.commands.executeCommand('markdown.showPreviewToSide', vscode.Uri.file(file.path)).then(undefined, () => undefined);
  const chat = host.chat.open;
  const thisChat = chat !== undefined && !chat.readOnly;
  const choice = await vscode.window.showInformationMessage(
    `Load capsule "${file.meta.title}"?`,
    { modal: true, detail: loadDetail(file, thisChat) },
    ...(thisChat ? [NEW_CHAT, THIS_CHAT] : [NEW_CHAT]),
  );
  if (choice === NEW_CHAT) await intoNewChat(host, file, queued);
  else if (choice === THIS_CHAT && chat) {
    const append = async (): Promise<void> => {
      try {
        // Its entries reach the view and the figures through the chat's append events.
        const r = await chat.loadCapsule(file);
        host.out.info(
          `Loaded capsule "${file.meta.title}" into this chat ${r.mode === 'seed' ? 'as its start' : 'here: the model now sees the capsule instead of the earlier messages (rewind to go back)'}.`,
        );
      } catch (err) {
        host.out.fail(`Not loaded: ${fileProblem(err)}`);
      }
    };
    if (queued) await append();
    else await host.chat.task('loadCapsule', append);
  } else host.out.info(`Capsule "${file.meta.title}" was not loaded.`);
}

async function intoNewChat(host: Pick<Services, 'chat' | 'out' | 'sessions'>, file: LoadedCapsuleFile, queued: boolean): Promise<void> {
  const sessionId = nodeIds.next('s_');
  // The file name and the header carry the same id, so the chat lists and opens like any other.
  const ids = { next: (prefix: string): string => (prefix === 's_' ? sessionId : nodeIds.next(prefix)) };
  try {
    await loadCapsuleIntoNewSession(file, host.sessions.directory.sessionPath(sessionId), { cwd: workspaceRoot(), ids });
  } catch (err) {
    host.out.fail(`Not loaded: ${fileProblem(err)}`);
    return;
  }
  const said = (): void => host.out.info(`Loaded capsule "${file.meta.title}" into a new chat; the next message starts from it.`);
  // Inside the work queue the switch waits for this job to end, so it must not be awaited here.
  if (queued) void switchChat(host, sessionId).then(said, (err: unknown) => host.out.fail(`Not loaded: ${errorMessage(err)}`));
  else {
    await switchChat(host, sessionId);
    said();
  }
}
