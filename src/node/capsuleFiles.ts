// `.capsule.md` files on disk: read with a size cap and strict UTF-8, write atomically, export from and load into sessions.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { IdSource } from '../engine/ports.js';
import {
  MAX_CAPSULE_FILE_BYTES,
  NOT_TEXT_MESSAGE,
  metaProblem,
  parseCapsuleFile,
  renderCapsuleFile,
  tooLargeMessage,
  type CapsuleMeta,
  type CapsuleProblemKind,
  type ParsedCapsuleFile,
} from '../engine/portable/capsuleFile.js';
import { exportContent, selectCapsule } from '../engine/portable/exportPlan.js';
import { importEntries } from '../engine/portable/imported.js';
import { counterForModel } from './tokenCounter.js';
import type { CapsuleEntry, CheckpointEntry, SessionHeader } from '../engine/transcript/schema.js';
import type { SessionTree } from '../engine/transcript/tree.js';
import { JsonlSessionStore, loadSessionFile } from './jsonlStore.js';
import { nodeIds } from './nodeClock.js';
import { errCode, exists, oneLine } from './fsUtil.js';
import { readRegularFile } from './regularFile.js';

export type CapsuleFileErrorKind = CapsuleProblemKind | 'not_found' | 'exists' | 'io' | 'no_capsule' | 'bad_meta' | 'read_only';

/** Every failure around capsule files, as one line naming the file. */
export class CapsuleFileError extends Error {
  readonly kind: CapsuleFileErrorKind;
  constructor(kind: CapsuleFileErrorKind, message: string) {
    super(message);
    this.name = 'CapsuleFileError';
    this.kind = kind;
  }
}

/** Models without a known tokenizer are counted with o200k, as elsewhere. */
const COUNT_MODEL = 'gpt-4o';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export interface LoadedCapsuleFile extends ParsedCapsuleFile {
  readonly path: string;
}

/**
 * Reads and validates a capsule file. The size is checked before reading, the bytes must be UTF-8,
 * and an edited body is refused unless `allowModified` ("load anyway"). Throws CapsuleFileError.
 */
export async function readCapsuleFile(path: string, opts: { readonly allowModified?: boolean } = {}): Promise<LoadedCapsuleFile> {
  const abs = resolve(path);
  const fail = (kind: CapsuleFileErrorKind, message: string): CapsuleFileError => new CapsuleFileError(kind, `${path}: ${message}`);
  const st = await stat(abs).catch((err: unknown) => {
    throw errCode(err) === 'ENOENT' ? fail('not_found', 'capsule file not found') : fail('io', oneLine(err));
  });
  if (!st.isFile()) throw fail('io', 'not a file');
  if (st.size > MAX_CAPSULE_FILE_BYTES) throw fail('too_large', tooLargeMessage(st.size));
  const bytes = await readRegularFile(abs, 'capsule file').catch((err: unknown) => {
    throw fail('io', oneLine(err));
  });
  // The size may have changed between stat and read.
  if (bytes.length > MAX_CAPSULE_FILE_BYTES) throw fail('too_large', tooLargeMessage(bytes.length));
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw fail('not_text', NOT_TEXT_MESSAGE);
  }
  const parsed = parseCapsuleFile(text, { sha256: sha256Hex, allowModified: opts.allowModified === true });
  if (!parsed.ok) throw fail(parsed.kind, parsed.message);
  return { meta: parsed.meta, body: parsed.body, modified: parsed.modified, hasLedger: parsed.hasLedger, checksum: parsed.checksum, path: abs };
}

/** Writes through a temp file in the same folder and renames it, so readers never see half a file. */
async function writeFileAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const h = await open(temp, 'wx');
    try {
      await h.writeFile(text, 'utf8');
      await h.sync();
    } finally {
      await h.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

export interface WrittenCapsuleFile extends ParsedCapsuleFile {
  /** The whole file as written. */
  readonly text: string;
}

/** Renders and writes a capsule file; refuses to replace an existing file unless `force`. */
export async function writeCapsuleFile(path: string, meta: CapsuleMeta, body: string, opts: { readonly force?: boolean } = {}): Promise<WrittenCapsuleFile> {
  const problem = metaProblem(meta);
  if (problem) throw new CapsuleFileError('bad_meta', `cannot write ${path}: ${problem}`);
  const text = renderCapsuleFile(meta, body, sha256Hex);
  // What we write must load back; a capsule without its sections would only fail later, elsewhere.
  const check = parseCapsuleFile(text, { sha256: sha256Hex });
  if (!check.ok) throw new CapsuleFileError(check.kind, `cannot export to ${path}: ${check.message}`);
  if (opts.force !== true && (await exists(path))) {
    throw new CapsuleFileError('exists', `${path} already exists; pass --force to overwrite it`);
  }
  await writeFileAtomic(resolve(path), text).catch((err: unknown) => {
    throw new CapsuleFileError('io', `cannot write ${path}: ${oneLine(err)}`);
  });
  return { meta: check.meta, body: check.body, modified: false, hasLedger: check.hasLedger, checksum: check.checksum, text };
}

export interface ExportOptions {
  readonly out: string;
  /** `ck_…`; without it the latest capsule on the active branch. */
  readonly checkpointId?: string;
  readonly title?: string;
  readonly force?: boolean;
}

export interface ExportResult {
  readonly path: string;
  readonly meta: CapsuleMeta;
  readonly capsule: CapsuleEntry;
}

/** Exports the capsule of a checkpoint (or the latest one) from a session file. */
export async function exportCapsuleFromSession(sessionPath: string, opts: ExportOptions): Promise<ExportResult> {
  const load = await loadSessionFile(sessionPath).catch((err: unknown) => {
    throw new CapsuleFileError('not_found', oneLine(err));
  });
  if (!load.header) throw new CapsuleFileError('io', `${sessionPath}: not a session file (no valid header)`);
  return exportFromTree(load.tree, load.header, opts);
}

/** Exports from an already loaded session (the extension's open chat). */
export async function exportFromTree(tree: SessionTree, header: SessionHeader, opts: ExportOptions): Promise<ExportResult> {
  // A chat opened tail-first holds only its end until indexed (docs/loading.md): an export would miss what lies before.
  if (tree.partial) throw new CapsuleFileError('io', 'The chat is still being read from disk; export it again in a moment.');
  const selection = selectCapsule(tree, opts.checkpointId);
  if (!selection.ok) throw new CapsuleFileError('no_capsule', selection.message);
  const counter = counterForModel(COUNT_MODEL);
  // Stable per capsule: exporting the same capsule twice gives the same id.
  const id = `cap_${sha256Hex(`${header.id}\n${selection.capsule.id}`).slice(0, 20)}`;
  const { meta, body } = exportContent({
    selection,
    header,
    id,
    ...(opts.title === undefined ? {} : { title: opts.title }),
    count: (t) => counter.count(t),
    now: new Date().toISOString(),
  });
  await writeCapsuleFile(opts.out, meta, body, { force: opts.force === true });
  return { path: resolve(opts.out), meta, capsule: selection.capsule };
}

/** The part of a session store loading needs (JsonlSessionStore fits). */
export interface WritableSession {
  readonly tree: SessionTree;
  readonly readOnly: boolean;
  readonly readOnlyReason?: string;
  append(entry: CheckpointEntry | CapsuleEntry): Promise<void>;
}

export interface LoadResult {
  readonly checkpoint: CheckpointEntry;
  readonly capsule: CapsuleEntry;
  readonly mode: 'seed' | 'handoff';
}

/**
 * Appends a loaded capsule to an open session: it seeds an empty session, or becomes a handoff on
 * the active branch of one with history (see importEntries). The next request starts from it.
 */
export async function appendCapsule(
  store: WritableSession,
  file: ParsedCapsuleFile,
  deps: { readonly ids?: IdSource; readonly now?: () => Date } = {},
): Promise<LoadResult> {
  if (store.readOnly) throw new CapsuleFileError('read_only', `cannot load into this session: ${store.readOnlyReason ?? 'it is read-only'}`);
  const counter = counterForModel(file.meta.model ?? COUNT_MODEL);
  const branch = store.tree.branch();
  const [checkpoint, capsule] = importEntries({
    branch,
    leafId: store.tree.leafId,
    capsule: file,
    ids: deps.ids ?? nodeIds,
    now: (deps.now?.() ?? new Date()).toISOString(),
    count: (t) => counter.count(t),
  });
  await store.append(checkpoint);
  await store.append(capsule);
  return { checkpoint, capsule, mode: branch.length === 0 ? 'seed' : 'handoff' };
}

/** `capsule load --new-session`: a new session file whose first state is the capsule. Refuses an existing file. */
export async function loadCapsuleIntoNewSession(
  file: ParsedCapsuleFile,
  sessionPath: string,
  opts: { readonly cwd: string; readonly ids?: IdSource },
): Promise<LoadResult & { readonly sessionId: string }> {
  if (await exists(sessionPath)) throw new CapsuleFileError('exists', `${sessionPath} already exists; choose a new session path`);
  const ids = opts.ids ?? nodeIds;
  const sessionId = ids.next('s_');
  const store = await JsonlSessionStore.open(sessionPath, { create: { id: sessionId, cwd: opts.cwd, title: file.meta.title } });
  try {
    return { ...(await appendCapsule(store, file, { ids })), sessionId };
  } finally {
    await store.close();
  }
}

/** `capsule load --into`: a handoff capsule on the active branch of an existing session. */
export async function loadCapsuleIntoSession(file: ParsedCapsuleFile, sessionPath: string, opts: { readonly ids?: IdSource } = {}): Promise<LoadResult> {
  if (!(await exists(sessionPath))) throw new CapsuleFileError('not_found', `session file not found: ${sessionPath}`);
  const store = await JsonlSessionStore.open(sessionPath);
  try {
    return await appendCapsule(store, file, opts.ids ? { ids: opts.ids } : {});
  } finally {
    await store.close();
  }
}
