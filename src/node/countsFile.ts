// The `<session>.jsonl.counts` sidecar (docs/behaviour.md#counted-once): every entry's token count, counted once and kept next to the session.
import { tempPathBeside } from './fsUtil.js';
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import type { PersistedCounts } from '../engine/tokens/persistedCounts.js';
import { writeAll } from './tornTail.js';

/** Where a session's counts live: next to it, named like the `.corrupt` sidecar so no session listing mistakes it for a chat. */
export function countsSidecarPath(sessionPath: string): string {
  return `${sessionPath}.counts`;
}

/** The file's first line names its format and its session, so a copied or foreign file is never trusted. */
const FORMAT = 1;
/** A counts file larger than this is not read (a session of a million entries needs about 60 MB). */
const MAX_BYTES = 256 * 1024 * 1024;

interface Header {
  readonly capsuleCounts: number;
  readonly session: string;
}

function headerOf(line: string): Header | undefined {
  try {
    const v: unknown = JSON.parse(line);
    if (typeof v !== 'object' || v === null) return undefined;
    const h = v as Partial<Record<keyof Header, unknown>>;
    return h.capsuleCounts === FORMAT && typeof h.session === 'string' ? { capsuleCounts: FORMAT, session: h.session } : undefined;
  } catch {
    return undefined;
  }
}

function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/** One record, `["<tokenizer>","<key>",<chars>,<tokens>]`; anything else (a torn line, a hand edit) is skipped. */
function recordOf(line: string): readonly [string, string, number, number] | undefined {
  if (!line.startsWith('[')) return undefined;
  try {
    const v: unknown = JSON.parse(line);
    if (!Array.isArray(v) || v.length !== 4) return undefined;
    const [tokenizer, key, chars, tokens] = v as unknown[];
    return typeof tokenizer === 'string' && typeof key === 'string' && isCount(chars) && isCount(tokens) ? [tokenizer, key, chars, tokens] : undefined;
  } catch {
    return undefined;
  }
}

function slot(tokenizer: string, key: string, chars: number): string {
  return `${tokenizer}\t${key}\t${chars}`;
}

/**
 * The counts of one session for every tokenizer it was counted with. Reads once at open; new counts are appended
 * in batches, one write of whole lines each, so a crash can at worst leave a torn last line, which the next read
 * skips. Counts are a cache: any read or write failure only means counting again.
 */
export class CountsFile {
  readonly #counts = new Map<string, number>();
  #pending: string[] = [];
  #flushing: Promise<void> = Promise.resolve();
  #scheduled = false;
  /** The file on disk is missing, foreign or unreadable: the next write replaces it (header first) instead of appending. */
  #fresh: boolean;

  private constructor(
    readonly path: string,
    readonly sessionId: string,
    fresh: boolean,
    /** False for a reader that must not write (a read-only open): counts it makes stay in memory. */
    private readonly writable: boolean,
  ) {
    this.#fresh = fresh;
  }

  /** Loads the sidecar of `sessionPath`; a missing, oversized, foreign or damaged file gives an empty one. Never throws. */
  static async load(sessionPath: string, sessionId: string, opts: { readonly writable?: boolean } = {}): Promise<CountsFile> {
    const path = countsSidecarPath(sessionPath);
    const text = await readSidecar(path);
    const lines = text === undefined ? [] : text.split('\n');
    const header = lines.length > 0 ? headerOf(lines[0] ?? '') : undefined;
    const ours = header?.session === sessionId;
    const file = new CountsFile(path, sessionId, !ours, opts.writable !== false);
    if (ours) {
      for (let i = 1; i < lines.length; i++) {
        const r = recordOf(lines[i] ?? '');
        if (r !== undefined) file.#counts.set(slot(r[0], r[1], r[2]), r[3]);
      }
    }
    return file;
  }

  /** How many counts were read or recorded (diagnostics, tests). */
  get size(): number {
    return this.#counts.size;
  }

  /** The counts of one tokenizer, as the per-entry cache reads and records them. */
  forTokenizer(tokenizer: string): PersistedCounts {
    return {
      get: (key, chars) => this.#counts.get(slot(tokenizer, key, chars)),
      put: (key, chars, tokens) => this.#put(tokenizer, key, chars, tokens),
    };
  }

  #put(tokenizer: string, key: string, chars: number, tokens: number): void {
    const s = slot(tokenizer, key, chars);
    if (this.#counts.get(s) === tokens) return;
    this.#counts.set(s, tokens);
    if (!this.writable) return;
    this.#pending.push(JSON.stringify([tokenizer, key, chars, tokens]));
    // A preflight records many counts at once: write them together, after the synchronous work that made them.
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** Writes what was recorded since the last flush; resolves when it is on disk (or failed, which is not an error). */
  flush(): Promise<void> {
    this.#scheduled = false;
    const lines = this.#pending;
    if (lines.length === 0) return this.#flushing;
    this.#pending = [];
    this.#flushing = this.#flushing.then(() => this.#write(lines)).catch(() => undefined);
    return this.#flushing;
  }

  async #write(lines: readonly string[]): Promise<void> {
    if (this.#fresh) {
      // Every count known so far, under a fresh header, in one rename: a foreign or torn file is replaced whole.
      const all = [...this.#counts].map(([s, n]) => {
        const [tokenizer = '', key = '', chars = '0'] = s.split('\t');
        return JSON.stringify([tokenizer, key, Number(chars), n]);
      });
      await replaceSidecar(this.path, `${JSON.stringify({ capsuleCounts: FORMAT, session: this.sessionId })}\n${all.map((l) => `${l}\n`).join('')}`);
      this.#fresh = false;
      return;
    }
    // O_NOFOLLOW: a link planted where the sidecar belongs is refused, never written through.
    const handle = await open(this.path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      if (!(await handle.stat()).isFile()) return;
      await writeAll(handle, Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8'));
    } finally {
      await handle.close();
    }
  }
}

/** The sidecar's text, or undefined when it is missing, not a regular file, a link, too large or unreadable. */
async function readSidecar(path: string): Promise<string | undefined> {
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const st = await handle.stat();
      if (!st.isFile() || st.size > MAX_BYTES) return undefined;
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** Replaces the sidecar in one rename from a freshly, exclusively created temp file. */
async function replaceSidecar(path: string, text: string): Promise<void> {
  const tmp = await tempPathBeside(path);
  try {
    const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await writeAll(handle, Buffer.from(text, 'utf8'));
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
