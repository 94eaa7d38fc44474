// The append-only log of workspace file changes a session made: one signed JSON line per changed path (root-relative, with its content ids before and after).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import * as z from '../../engine/zod.js';
import { oneLine, readJsonLines } from '../fsUtil.js';
import { isInside, realRoots } from '../tools/paths.js';
import { realish } from '../tools/ownFiles.js';
import { StateSchema, type FileState } from './fileState.js';
import { cliKeyPath, integrityKey } from './integrityKey.js';

export type { FileState };

const Why = z.enum(['write', 'command', 'restore']);

/** A change as the rest of Capsule sees it: the absolute real path inside one of the session's workspace roots. */
export interface Change {
  readonly path: string;
  /** The session's newest entry (file order) when the change happened: the file's order is the order of changes on disk. */
  readonly leaf: string | null;
  readonly before: FileState;
  readonly after: FileState;
  readonly why: z.infer<typeof Why>;
  readonly at: string;
}

/**
 * A line on disk. The path is relative to `root` (a real workspace root, '/'-separated, no '.' or '..'), and `mac` is
 * an HMAC-SHA256 over every other field, keyed by the user's secret (integrityKey.ts), which never lives in a
 * workspace: a log that came with a cloned repository, or one a command rewrote, has no valid record.
 */
const RecordSchema = z.object({
  v: z.literal(2),
  root: z.string().check(z.minLength(1)),
  path: z.string().check(z.minLength(1)),
  leaf: z.nullable(z.string()),
  before: StateSchema,
  after: StateSchema,
  why: Why,
  at: z.string(),
  mac: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
});
type ChangeRecord = z.infer<typeof RecordSchema>;

/** A record that is never applied, with the path it names (as written, made printable) and why. */
export interface RefusedRecord {
  readonly path: string;
  readonly reason: string;
}

export const REFUSED = {
  outside: "names a path outside this session's workspace folders (absolute, or through ..)",
  unsigned: 'carries no integrity check from Capsule on this machine (a log from elsewhere, e.g. a cloned repository, or from an older Capsule)',
  badMac: 'does not match its integrity check (changed after Capsule wrote it, or written by someone else)',
} as const;

export interface ChangeLogOptions {
  /** The session's workspace roots: records name paths inside one of them, and a record for any other place is refused. */
  readonly roots?: readonly string[];
  /** The key file (default: the CLI's, see cliKeyPath). */
  readonly keyFile?: string;
  /** Capsule's own files (session, sidecars, snapshot store, settings it writes): never logged, so never restored. */
  readonly own?: () => readonly string[];
}

/** Control characters in a name from a log are shown, never sent to a terminal raw; long names are cut. */
export function printable(p: string): string {
  const shown = p.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return shown.length > 300 ? `${shown.slice(0, 300)}…` : shown;
}

function macOf(key: Buffer, r: Omit<ChangeRecord, 'mac'>): string {
  return createHmac('sha256', key)
    .update(JSON.stringify(['capsule-change', r.v, r.root, r.path, r.leaf, r.before, r.after, r.why, r.at]))
    .digest('hex');
}

/** A '/'-separated path that stays below its root: no empty, '.' or '..' part, not absolute, no NUL. */
function saneRelative(rel: string): boolean {
  if (rel.includes('\0') || rel.includes('\\') || rel.startsWith('/')) return false;
  return rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

export class ChangeLog {
  private loaded: Change[] | undefined;
  private refusedList: RefusedRecord[] = [];
  private writing: Promise<void> = Promise.resolve();
  private readonly keyFile: string;
  /** Lines that did not parse when the log was read (a torn last line after a crash, or damage). */
  skippedLines = 0;

  constructor(
    readonly file: string,
    private readonly opts: ChangeLogOptions = {},
  ) {
    this.keyFile = opts.keyFile ?? cliKeyPath();
  }

  /** The changes whose records passed every check, in file order. */
  all(): Promise<readonly Change[]> {
    return this.load();
  }

  /** The records that were refused when the log was read (see REFUSED). */
  async refused(): Promise<readonly RefusedRecord[]> {
    await this.load();
    return this.refusedList;
  }

  /** The real paths of the session's workspace roots (the only places a restore may write). */
  roots(): Promise<string[]> {
    return realRoots(this.opts.roots ?? []);
  }

  /** Whether `path` is (or lies inside) one of Capsule's own files. */
  async ownTest(): Promise<(path: string) => boolean> {
    const own = this.opts.own?.() ?? [];
    const all = [...own.map((o) => resolve(o)), ...(await Promise.all(own.map((o) => realish(o))))];
    return (p) => all.some((o) => isInside(o, p));
  }

  private async load(): Promise<Change[]> {
    if (this.loaded !== undefined) return this.loaded;
    const roots = await this.roots();
    let key: Buffer | undefined;
    let keyProblem: string | undefined;
    try {
      key = await integrityKey(this.keyFile);
    } catch (err) {
      keyProblem = `cannot be checked: ${oneLine(err)}`;
    }
    const refused: RefusedRecord[] = [];
    const r = await readJsonLines(this.file, (raw) => {
      const got = this.check(raw, roots, key, keyProblem);
      if (got === undefined) return undefined;
      if ('reason' in got) {
        refused.push(got);
        return null;
      }
      return got;
    });
    this.refusedList = refused;
    this.skippedLines = r.skipped;
    this.loaded = r.items.filter((c): c is Change => c !== null);
    return this.loaded;
  }

  /** One parsed line: the change, a refusal, or undefined for a line that is not a change record at all. */
  private check(raw: unknown, roots: readonly string[], key: Buffer | undefined, keyProblem: string | undefined): Change | RefusedRecord | undefined {
    if (typeof raw !== 'object' || raw === null || typeof (raw as { path?: unknown }).path !== 'string') return undefined;
    const named = (raw as { path: string }).path;
    const rec = RecordSchema.safeParse(raw);
    if (!rec.success) {
      const outside = isAbsolute(named) ? !roots.some((root) => isInside(root, named)) : !saneRelative(named);
      return { path: printable(named), reason: outside ? REFUSED.outside : REFUSED.unsigned };
    }
    const c = rec.data;
    const shown = printable(saneRelative(c.path) ? join(c.root, c.path) : `${c.root}/${c.path}`);
    if (!saneRelative(c.path) || !roots.includes(c.root)) return { path: shown, reason: REFUSED.outside };
    if (key === undefined) return { path: shown, reason: keyProblem ?? REFUSED.unsigned };
    const { mac, ...fields } = c;
    const want = Buffer.from(macOf(key, fields), 'hex');
    if (!timingSafeEqual(want, Buffer.from(mac, 'hex'))) return { path: shown, reason: REFUSED.badMac };
    return { path: join(c.root, ...c.path.split('/')), leaf: c.leaf, before: c.before, after: c.after, why: c.why, at: c.at };
  }

  /**
   * Appends changes in call order, each as one whole signed line. A path outside the roots or among Capsule's own
   * files is never logged (a restore could not, or must not, touch it). Returns the changes that were logged.
   */
  async append(changes: readonly Change[]): Promise<Change[]> {
    if (changes.length === 0) return [];
    const list = await this.load();
    const roots = await this.roots();
    const own = await this.ownTest();
    const key = await integrityKey(this.keyFile);
    const kept: Change[] = [];
    const lines: string[] = [];
    for (const c of changes) {
      const root = roots.filter((r) => isInside(r, c.path)).sort((a, b) => b.length - a.length)[0];
      if (root === undefined || own(c.path)) continue;
      const rel = relative(root, c.path).split(sep).join('/');
      if (!saneRelative(rel)) continue;
      const fields = { v: 2 as const, root, path: rel, leaf: c.leaf, before: c.before, after: c.after, why: c.why, at: c.at };
      lines.push(JSON.stringify({ ...fields, mac: macOf(key, fields) }));
      kept.push(c);
    }
    if (lines.length === 0) return [];
    const run = this.writing.then(async () => {
      await mkdir(dirname(this.file), { recursive: true });
      // A torn last line (crash mid-write) must not glue itself to the next one: every write starts on a fresh line.
      await appendFile(this.file, `\n${lines.join('\n')}\n`, 'utf8');
      list.push(...kept);
    });
    this.writing = run.catch(() => undefined);
    await run;
    return kept;
  }
}
