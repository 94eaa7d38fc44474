// The per-session evidence archive on disk (docs/behaviour.md#evidence): one immutable JSON snapshot per compaction, written to a temp file, fsynced, then published.
import { JsonTooDeepError, parseJsonText } from '../engine/jsonText.js';
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from '../engine/zod.js';
import { detectTruncatedItems } from '../engine/compaction/evidence.js';
import type { ArchivedEvidence } from '../engine/compaction/evidence.js';
import type { EvidenceArchive, EvidenceSnapshot } from '../engine/ports.js';
import { ImagePartSchema, ToolCallSchema } from '../engine/transcript/schema.js';
import { errCode, exists, syncDir } from './fsUtil.js';
import { writeJsonStreamed } from './jsonStream.js';
import { readRegularFile } from './regularFile.js';

const FORMAT = 'capsule-evidence';
const VERSION = 1;
const OPERATION_ID = /^[A-Za-z0-9_-]{1,128}$/;
const SNAPSHOT_FILE = /^([A-Za-z0-9_-]{1,128})\.json$/;

const ModelMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: z.string(), images: z.optional(z.array(ImagePartSchema)), entryId: z.optional(z.string()) }),
  z.object({ role: z.literal('assistant'), content: z.string(), toolCalls: z.optional(z.array(ToolCallSchema)), entryId: z.optional(z.string()) }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), content: z.string(), entryId: z.optional(z.string()) }),
]);

/** The file: the port's snapshot plus what the port does not carry (format tag, version, projections). */
const EvidenceFileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.number().check(z.int(), z.positive()),
  operationId: z.string().check(z.regex(OPERATION_ID)),
  checkpointId: z.string().check(z.minLength(1), z.maxLength(200)),
  createdAt: z.string().check(z.minLength(1), z.maxLength(64)),
  excluded: z.array(ModelMessageSchema),
  summarizerInput: z.array(ModelMessageSchema),
  truncatedItems: z._default(z.array(z.number().check(z.int(), z.nonnegative())), []),
});
type EvidenceFile = z.infer<typeof EvidenceFileSchema>;

export interface EvidenceListItem {
  readonly operationId: string;
  readonly checkpointId: string;
  readonly createdAt: string;
  /** Messages in the snapshot: excluded plus summarizer input. */
  readonly items: number;
}

/**
 * Failure of the archive. Messages never contain file paths, because they can reach the model
 * through read_compaction_evidence; `file` keeps the path for humans and logs.
 */
export class EvidenceArchiveError extends Error {
  override readonly name = 'EvidenceArchiveError';
  readonly file: string | undefined;
  constructor(message: string, file?: string) {
    super(message);
    this.file = file;
  }
}

function checkOperationId(id: string): string {
  // Ids become file names: reject anything that could leave the folder.
  if (!OPERATION_ID.test(id)) throw new EvidenceArchiveError(`Invalid compaction operation id: ${JSON.stringify(id.slice(0, 200))}`);
  return id;
}

function issuesOf(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

type Parsed = { readonly success: true; readonly data: EvidenceFile } | { readonly success: false; readonly error: z.core.$ZodError };

/**
 * EvidenceFileSchema.safeParse, with the same result, without zod walking every message of a million-token span:
 * the small head is parsed by zod, and each message that already has the plain shape the engine produces is
 * rebuilt in the schema's key order (what zod would return). A message that does not (images, unknown keys, a bad
 * value) goes through zod itself, and any failure re-runs the whole parse so the error names the same issues.
 */
function parseEvidence(raw: Readonly<Record<string, unknown>> & { readonly excluded: unknown; readonly summarizerInput: unknown }): Parsed {
  const whole = (): Parsed => EvidenceFileSchema.safeParse(raw);
  const head = EvidenceFileSchema.safeParse({ ...raw, excluded: [], summarizerInput: [] });
  if (!head.success) return whole();
  const excluded = messagesOf(raw.excluded);
  const summarizerInput = excluded === undefined ? undefined : messagesOf(raw.summarizerInput);
  if (excluded === undefined || summarizerInput === undefined) return whole();
  return { success: true, data: { ...head.data, excluded, summarizerInput } };
}

type ArchivedMessage = EvidenceFile['excluded'][number];

function messagesOf(list: unknown): ArchivedMessage[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: ArchivedMessage[] = [];
  for (const m of list as unknown[]) {
    const plain = plainMessage(m);
    if (plain !== undefined) {
      out.push(plain);
      continue;
    }
    const r = ModelMessageSchema.safeParse(m);
    if (!r.success) return undefined;
    out.push(r.data);
  }
  return out;
}

const USER_KEYS = new Set(['role', 'content', 'entryId']);
const ASSISTANT_KEYS = new Set(['role', 'content', 'toolCalls', 'entryId']);
const TOOL_KEYS = new Set(['role', 'toolCallId', 'content', 'entryId']);
const CALL_KEYS = new Set(['id', 'name', 'arguments']);

const onlyKeys = (o: object, allowed: ReadonlySet<string>): boolean => Object.keys(o).every((k) => allowed.has(k));
const optionalString = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';
const filled = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** The message as zod would return it, when it has nothing zod would strip, reject or need to look into (images). */
function plainMessage(m: unknown): ArchivedMessage | undefined {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return undefined;
  const o = m as Record<string, unknown>;
  const entryId = o['entryId'];
  if (!optionalString(entryId) || typeof o['content'] !== 'string') return undefined;
  const content = o['content'];
  const id = entryId === undefined ? {} : { entryId };
  switch (o['role']) {
    case 'user':
      return onlyKeys(o, USER_KEYS) ? { role: 'user', content, ...id } : undefined;
    case 'tool': {
      const toolCallId = o['toolCallId'];
      return onlyKeys(o, TOOL_KEYS) && typeof toolCallId === 'string' ? { role: 'tool', toolCallId, content, ...id } : undefined;
    }
    case 'assistant': {
      if (!onlyKeys(o, ASSISTANT_KEYS)) return undefined;
      const calls = o['toolCalls'];
      if (calls === undefined) return { role: 'assistant', content, ...id };
      if (!Array.isArray(calls)) return undefined;
      const toolCalls: { id: string; name: string; arguments: string }[] = [];
      for (const c of calls as unknown[]) {
        if (typeof c !== 'object' || c === null || !onlyKeys(c, CALL_KEYS)) return undefined;
        const call = c as Record<string, unknown>;
        const [cid, name, args] = [call['id'], call['name'], call['arguments']];
        if (!filled(cid) || !filled(name) || typeof args !== 'string') return undefined;
        toolCalls.push({ id: cid, name, arguments: args });
      }
      return { role: 'assistant', content, toolCalls, ...id };
    }
    default:
      return undefined;
  }
}

export class FileEvidenceArchive implements EvidenceArchive {
  readonly dir: string;

  /** `dir` is the session's own archive folder, e.g. SessionDirectory.archiveDir(sessionId). */
  constructor(dir: string) {
    this.dir = dir;
  }

  private fileOf(operationId: string): string {
    return join(this.dir, `${checkOperationId(operationId)}.json`);
  }

  /**
   * Saves one compaction's evidence as `<operationId>.json`. Fails, leaving nothing behind, when that
   * snapshot already exists: snapshots are immutable. `truncatedItems` (indexes over excluded then
   * summarizerInput) marks projections; when absent, truncated tool results are detected by their marker.
   */
  async save(snapshot: EvidenceSnapshot & { readonly truncatedItems?: readonly number[] }): Promise<void> {
    const final = this.fileOf(snapshot.operationId);
    const parsed = parseEvidence({
      format: FORMAT,
      version: VERSION,
      operationId: snapshot.operationId,
      checkpointId: snapshot.checkpointId,
      createdAt: snapshot.createdAt,
      excluded: snapshot.excluded,
      summarizerInput: snapshot.summarizerInput,
      truncatedItems: snapshot.truncatedItems ?? detectTruncatedItems(snapshot),
    });
    if (!parsed.success) throw new EvidenceArchiveError(`Refusing to archive invalid evidence for ${snapshot.operationId}: ${issuesOf(parsed.error)}`);
    const duplicate = (): EvidenceArchiveError =>
      new EvidenceArchiveError(`Compaction evidence ${snapshot.operationId} already exists; archived snapshots are immutable`, final);
    const tmp = join(this.dir, `.${snapshot.operationId}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await mkdir(this.dir, { recursive: true });
      if (await exists(final)) throw duplicate();
      const h = await open(tmp, 'wx');
      try {
        // Streamed: a million-token span is megabytes of JSON, never held as one string. A value that cannot be
        // serialized fails here, and the temp file is removed below, so no snapshot is published.
        await writeJsonStreamed(h, parsed.data);
        await h.sync();
      } finally {
        await h.close();
      }
      await this.publish(tmp, final, duplicate);
      await syncDir(this.dir);
    } catch (err) {
      if (err instanceof EvidenceArchiveError) throw err;
      throw new EvidenceArchiveError(`Could not archive compaction evidence ${snapshot.operationId}: ${errCode(err) || String(err)}`, final);
    } finally {
      // Never leave a temp file behind, whatever failed; a failure to remove it must not mask the real error.
      await rm(tmp, { force: true }).catch(() => undefined);
    }
  }

  /**
   * Publishes the temp file under its final name without ever replacing an existing snapshot: a hard
   * link fails atomically when the name is taken (rename would silently overwrite). Where links are
   * unsupported, fall back to check-then-rename; the session's single-writer lock makes that safe.
   */
  private async publish(tmp: string, final: string, duplicate: () => Error): Promise<void> {
    try {
      await link(tmp, final);
      return;
    } catch (err) {
      if (errCode(err) === 'EEXIST') throw duplicate();
      if (!['EPERM', 'ENOTSUP', 'ENOSYS', 'EXDEV', 'EMLINK', 'EOPNOTSUPP'].includes(errCode(err))) throw err;
    }
    if (await exists(final)) throw duplicate();
    await rename(tmp, final);
  }

  /** The snapshot, or undefined when none was archived under this id. Corrupt files throw a clear error. */
  async load(operationId: string): Promise<ArchivedEvidence | undefined> {
    const file = await this.readFileOf(operationId);
    return file === undefined ? undefined : toSnapshot(file);
  }

  private async readFileOf(operationId: string): Promise<EvidenceFile | undefined> {
    const path = this.fileOf(operationId);
    let text: string;
    try {
      text = (await readRegularFile(path, 'evidence file')).toString('utf8');
    } catch (err) {
      if (errCode(err) === 'ENOENT' || errCode(err) === 'ENOTDIR') return undefined;
      throw new EvidenceArchiveError(`Compaction evidence ${operationId} could not be read (${errCode(err) || 'I/O error'})`, path);
    }
    let raw: unknown;
    try {
      raw = parseJsonText(text);
    } catch (err) {
      throw new EvidenceArchiveError(
        `Compaction evidence ${operationId} is corrupt: ${err instanceof JsonTooDeepError ? err.message : 'not valid JSON'}`,
        path,
      );
    }
    const parsed = EvidenceFileSchema.safeParse(raw);
    if (!parsed.success) throw new EvidenceArchiveError(`Compaction evidence ${operationId} is corrupt: ${issuesOf(parsed.error)}`, path);
    if (parsed.data.version > VERSION) {
      throw new EvidenceArchiveError(`Compaction evidence ${operationId} was written by a newer version of Capsule (format ${parsed.data.version})`, path);
    }
    if (parsed.data.operationId !== operationId) {
      throw new EvidenceArchiveError(`Compaction evidence ${operationId} is corrupt: it holds operation ${parsed.data.operationId}`, path);
    }
    return parsed.data;
  }

  /** Every readable snapshot, oldest first; corrupt files and leftover temp files are skipped. */
  async list(): Promise<EvidenceListItem[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const out: EvidenceListItem[] = [];
    for (const name of names) {
      const id = SNAPSHOT_FILE.exec(name)?.[1];
      if (id === undefined) continue;
      const f = await this.readFileOf(id).catch(() => undefined);
      if (f === undefined) continue;
      out.push({ operationId: f.operationId, checkpointId: f.checkpointId, createdAt: f.createdAt, items: f.excluded.length + f.summarizerInput.length });
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.operationId.localeCompare(b.operationId));
  }

  /** The newest snapshot taken for a checkpoint (the capsule entry names its checkpoint). */
  async findByCheckpoint(checkpointId: string): Promise<ArchivedEvidence | undefined> {
    const hit = (await this.list()).filter((s) => s.checkpointId === checkpointId).pop();
    return hit === undefined ? undefined : this.load(hit.operationId);
  }

  /** Removes the whole archive folder (the chat is being deleted). */
  async deleteAll(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

function toSnapshot(f: EvidenceFile): ArchivedEvidence {
  return {
    operationId: f.operationId,
    checkpointId: f.checkpointId,
    createdAt: f.createdAt,
    excluded: f.excluded,
    summarizerInput: f.summarizerInput,
    truncatedItems: f.truncatedItems,
  };
}
