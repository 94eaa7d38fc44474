// The chat's slash commands and the capsule actions behind them: /compact, /budget, /auto-compact, /capsule show|create|export|load.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { CompletedOutcome } from '../../engine/compaction/outcome.js';
import { formatBudget } from '../../engine/tokens/budgetFormat.js';
import { latestCapsule } from '../../engine/transcript/modelInput.js';
import { appendCapsule, CapsuleFileError, exportCapsuleFromSession, exportFromTree, readCapsuleFile, type ExportResult } from '../../node/capsuleFiles.js';
import { errorMessage } from '../base/log.js';
import type { SlashCommand } from '../base/slash.js';
import { readSetting, writeSetting } from '../services/settings.js';
import type { Services } from './services.js';

export function workspaceRoot(): string {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath ?? homedir();
}

/** Paths typed in the chat are relative to the workspace folder; `~/` is the home folder. */
export function resolveUserPath(p: string): string {
  if (p === '~' || p.startsWith('~/')) return join(homedir(), p.slice(1));
  return isAbsolute(p) ? resolve(p) : resolve(workspaceRoot(), p);
}

function fileProblem(err: unknown): string {
  if (err instanceof CapsuleFileError && err.kind === 'exists') return err.message.replace(/; pass --force to overwrite it$/, '; choose another path');
  return errorMessage(err);
}

/** Runs one parsed slash command; the palette and the toolbar call the same functions. */
export async function runSlash(host: Services, c: SlashCommand, signal: AbortSignal): Promise<void> {
  switch (c.kind) {
    case 'compact':
      return compact(host, c.focus, signal);
    case 'budget':
      return showBudget(host);
    case 'autoCompact':
      host.out.info(await setAutoCompact(c.on));
      return;
    case 'capsuleShow':
      return showLatestCapsule(host);
    case 'capsuleCreate':
      return createPortable(host, c.title, signal);
    case 'capsuleExport':
      return exportTo(host, c.checkpointId, c.path);
    case 'capsuleLoad':
      return loadInto(host, c.path);
    case 'invalid':
      host.out.fail(c.message);
      return;
  }
}

function completedOf(outcomes: readonly { readonly outcome: string }[]): CompletedOutcome | undefined {
  return [...outcomes].reverse().find((o): o is CompletedOutcome => o.outcome === 'completed');
}

/** `/compact [focus]`, the toolbar and the palette's Compact Context: no ROI gate; a validated full capsule becomes Project Memory. */
export async function compact(host: Pick<Services, 'chat' | 'out' | 'memory' | 'logger'>, focus: string | undefined, signal: AbortSignal): Promise<void> {
  const a = host.chat.agent;
  if (!a) {
    host.out.fail(`Nothing was compacted: ${host.chat.problem ?? 'no model is set up yet'}`);
    return;
  }
  const r = await a.compact({ ...(focus === undefined ? {} : { focus }), signal });
  const done = completedOf(r.outcomes);
  if (done) {
    try {
      // The fallback capsule is the degraded one; a full capsule passed the compaction's validation.
      const mirrored = await host.memory.mirror(done.capsule, { validated: done.quality === 'full', sessionId: a.store.header.id, model: a.agent.currentModel.chat.model });
      if (mirrored) host.out.info(`Project Memory was updated from ${done.checkpointId} (Capsule: Show Project Memory opens it).`);
    } catch (err) {
      host.logger.log('warn', `Project Memory was not updated: ${errorMessage(err)}`);
    }
  } else if (r.outcomes.length === 0) host.out.info('Nothing to compact.');
  // The figures follow the compaction's own events (the projection measures at its end); nothing to post here.
}

export function showBudget(host: Pick<Services, 'chat' | 'out' | 'logger'>): void {
  host.chat.remeasure();
  const b = host.chat.budget;
  if (!b) {
    host.out.fail(host.chat.problem ?? 'No chat is open yet.');
    return;
  }
  const text = formatBudget(b);
  host.out.info(text);
  host.logger.log('info', `Context budget\n${text}`);
}

/** `/capsule`: the capsule in force, in the viewer. */
function showLatestCapsule(host: Pick<Services, 'chat' | 'out'>): void {
  const store = host.chat.store;
  const latest = store ? latestCapsule(store.tree.branch()) : undefined;
  if (latest) host.out.showCapsule(latest.capsule.checkpointId);
  else host.out.info('This chat has no capsule yet; /compact makes one.');
}

/** `/auto-compact on|off`, the toolbar toggle and the palette: one setting, written by the one scope rule; returns what to tell the user. */
export async function setAutoCompact(on: boolean): Promise<string> {
  await writeSetting('compaction.auto', on);
  const envOff = (process.env.CAPSULE_AUTO_COMPACT ?? '').trim().toLowerCase() === 'false';
  return on ? `Auto-compact on${envOff ? ' (CAPSULE_AUTO_COMPACT=false still keeps it off)' : ''}.` : 'Auto-compact off; hard-limit protection and overflow recovery stay on.';
}

/** The toolbar's and the palette's toggle: flips what the settings say now. */
export function toggleAutoCompact(): Promise<string> {
  return setAutoCompact(!(readSetting<boolean>('compaction.auto') ?? true));
}

function slug(title: string): string {
  const s = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return s === '' ? 'capsule' : s;
}

/** `/capsule create "title"`: a fresh capsule of the current state, written as a portable file under `.capsule/`. */
async function createPortable(host: Pick<Services, 'chat' | 'out'>, title: string, signal: AbortSignal): Promise<void> {
  const a = host.chat.agent;
  if (!a) {
    host.out.fail(`No capsule was created: ${host.chat.problem ?? 'no model is set up yet'}`);
    return;
  }
  const r = await a.compact({ focus: title, signal });
  const capsule = completedOf(r.outcomes)?.capsule ?? latestCapsule(a.store.tree.branch())?.capsule;
  if (!capsule) {
    host.out.fail('No capsule was created: this chat has nothing to summarize yet.');
    return;
  }
  const dir = join(workspaceRoot(), '.capsule');
  let out = join(dir, `${slug(title)}.capsule.md`);
  for (let n = 2; existsSync(out); n++) out = join(dir, `${slug(title)}-${n}.capsule.md`);
  try {
    const res = await exportFromTree(a.store.tree, a.store.header, { out, checkpointId: capsule.checkpointId, title });
    host.out.info(`Portable capsule "${title}" (${res.meta.quality}, ${res.meta.tokens} tokens) written to ${res.path}. Load it elsewhere with /capsule load <path>.`);
  } catch (err) {
    host.out.fail(`No capsule was created: ${fileProblem(err)}`);
  }
}

async function exportTo(host: Pick<Services, 'chat' | 'out'>, checkpointId: string, path: string): Promise<void> {
  const store = host.chat.store;
  if (!store) return host.out.fail(host.chat.problem ?? 'No chat is open.');
  try {
    const res = await exportFromTree(store.tree, store.header, { out: resolveUserPath(path), checkpointId });
    host.out.info(`Exported ${checkpointId} (${res.meta.quality}, ${res.meta.tokens} tokens) to ${res.path}.`);
  } catch (err) {
    host.out.fail(`Not exported: ${fileProblem(err)}`);
  }
}

/** `/capsule load path`: the file is validated and enters this chat as data (a seed, or a handoff after its history). */
async function loadInto(host: Pick<Services, 'chat' | 'out'>, path: string): Promise<void> {
  const store = host.chat.store;
  if (!store) return host.out.fail(host.chat.problem ?? 'No chat is open.');
  try {
    const file = await readCapsuleFile(resolveUserPath(path));
    const r = await appendCapsule(store, file);
    host.chat.changed();
    host.out.info(`Loaded capsule "${file.meta.title}" (${file.meta.quality}) ${r.mode === 'seed' ? 'as the start of this chat' : 'as a handoff'}; the next request starts from it.`);
  } catch (err) {
    host.out.fail(`Not loaded: ${fileProblem(err)}`);
  }
}

/** Export with a save dialog (palette, tree, the viewer's Export button); another chat's capsule is read from its file. */
export async function exportWithDialog(host: Pick<Services, 'chat'>, checkpointId: string, sessionPath?: string): Promise<ExportResult | undefined> {
  const uri = await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.file(join(workspaceRoot(), `${checkpointId}.capsule.md`)),
    filters: { 'Portable capsule': ['md'] },
    saveLabel: 'Export Capsule',
    title: `Export the capsule of ${checkpointId}`,
  });
  if (!uri) return undefined;
  const store = host.chat.store;
  try {
    // The dialog already asked about replacing an existing file.
    const opts = { out: uri.fsPath, checkpointId, force: true };
    const res = sessionPath === undefined || sessionPath === store?.path ? await exportOpen(host, opts) : await exportCapsuleFromSession(sessionPath, opts);
    void vscode.window.showInformationMessage(`Capsule: exported ${checkpointId} (${res.meta.quality}) to ${res.path}`);
    return res;
  } catch (err) {
    void vscode.window.showErrorMessage(`Capsule: not exported: ${fileProblem(err)}`);
    return undefined;
  }
}

function exportOpen(host: Pick<Services, 'chat'>, opts: { readonly out: string; readonly checkpointId: string; readonly force: boolean }): Promise<ExportResult> {
  const store = host.chat.store;
  if (!store) throw new Error(host.chat.problem ?? 'no chat is open');
  return exportFromTree(store.tree, store.header, opts);
}
