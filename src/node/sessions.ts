// The storage folder of one workspace: one JSONL file per chat, listing with cheap summaries, create/open/delete.
import { parseJsonText } from '../engine/jsonText.js';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, IdSource } from '../engine/ports.js';
import { JsonlSessionStore, openWriterFor } from './jsonlStore.js';
import { scanLines } from './lineReader.js';
import { nodeIds } from './nodeClock.js';
import { isLockedElsewhere, lockDirPath, ownerPath } from './sessionLock.js';
import { corruptSidecarPath } from './tornTail.js';
import { countsSidecarPath } from './countsFile.js';

export interface SessionSummary {
  readonly id: string;
  readonly path: string;
  /** The header title, else the start of the first user message. */
  readonly title?: string;
  readonly createdAt: string;
  /** Non-blank lines after the header (not validated: listing must stay cheap for 100 MB sessions). */
  readonly entries: number;
  readonly bytes: number;
  readonly mtimeMs: number;
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;
const TITLE_MAX = 80;
/** Lines above this are not parsed while listing (a header or a first user message is far smaller). */
const SUMMARY_PARSE_LIMIT = 1024 * 1024;
const USER_MARKER = Buffer.from('"type":"user"');

interface Scanned {
  readonly headerTitle?: string;
  readonly firstUser?: string;
  readonly createdAt?: string;
  readonly entries: number;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = parseJsonText(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function shortTitle(text: string): string | undefined {
  const first = text.trim().split('\n')[0]?.trim() ?? '';
  if (first.length === 0) return undefined;
  return first.length > TITLE_MAX ? `${first.slice(0, TITLE_MAX - 1)}…` : first;
}

/** Reads just enough of a session file for the list: header fields, first user message, line count. */
async function scanSummary(path: string): Promise<Scanned> {
  let headerTitle: string | undefined;
  let createdAt: string | undefined;
  let firstUser: string | undefined;
  let entries = 0;
  await scanLines(path, {
    line(info, buf, start, end) {
      if (!info.terminated) return;
      if (info.lineNo === 1) {
        const h = info.length <= SUMMARY_PARSE_LIMIT ? parseObject(buf.toString('utf8', start, end)) : undefined;
        if (h?.type === 'session') {
          if (typeof h.title === 'string') headerTitle = h.title;
          if (typeof h.createdAt === 'string') createdAt = h.createdAt;
          return;
        }
      }
      let blank = true;
      for (let i = start; i < end && blank; i++) blank = buf[i] === 0x20 || buf[i] === 0x09 || buf[i] === 0x0d;
      if (blank) return;
      entries++;
      if (firstUser === undefined && headerTitle === undefined && info.length <= SUMMARY_PARSE_LIMIT) {
        const at = buf.indexOf(USER_MARKER, start);
        if (at !== -1 && at < end) {
          const e = parseObject(buf.toString('utf8', start, end));
          if (e?.type === 'user' && typeof e.content === 'string') firstUser = shortTitle(e.content);
        }
      }
    },
    oversized(info) {
      if (info.terminated && info.lineNo > 1) entries++;
    },
  });
  return { headerTitle, firstUser, createdAt, entries };
}

export class SessionDirectory {
  readonly root: string;
  private readonly ids: IdSource;
  private readonly clock: Pick<Clock, 'now'> | undefined;
  // Summaries by path, reused while size and mtime are unchanged, so refreshing the list stays cheap.
  private readonly cache = new Map<string, { readonly size: number; readonly mtimeMs: number; readonly summary: SessionSummary }>();

  /** Sessions live in `<root>/sessions/<id>.jsonl`, their evidence archives in `<root>/archive/<id>/`. */
  constructor(root: string, deps: { readonly ids?: IdSource; readonly clock?: Pick<Clock, 'now'> } = {}) {
    this.root = root;
    this.ids = deps.ids ?? nodeIds;
    this.clock = deps.clock;
  }

  get sessionsDir(): string {
    return join(this.root, 'sessions');
  }

  sessionPath(id: string): string {
    return join(this.sessionsDir, `${checkId(id)}.jsonl`);
  }

  archiveDir(id: string): string {
    return join(this.root, 'archive', checkId(id));
  }

  /** Newest first. Unreadable files are listed with what could be read; never throws for content. */
  async list(): Promise<SessionSummary[]> {
    let names: string[];
    try {
      names = await readdir(this.sessionsDir);
    } catch {
      return [];
    }
    const out: SessionSummary[] = [];
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      const id = name.slice(0, -'.jsonl'.length);
      if (!SESSION_ID.test(id)) continue;
      const s = await this.summarize(id, join(this.sessionsDir, name));
      if (s) out.push(s);
    }
    return out.sort((a, b) => b.mtimeMs - a.mtimeMs || a.id.localeCompare(b.id));
  }

  private async summarize(id: string, path: string): Promise<SessionSummary | undefined> {
    const st = await stat(path).catch(() => undefined);
    if (!st?.isFile()) return undefined; // vanished meanwhile, or not a file
    const cached = this.cache.get(path);
    if (cached && cached.size === st.size && cached.mtimeMs === st.mtimeMs) return cached.summary;
    const scanned: Scanned = await scanSummary(path).catch(() => ({ entries: 0 }));
    const title = scanned.headerTitle ?? scanned.firstUser;
    const summary: SessionSummary = {
      id,
      path,
      ...(title === undefined ? {} : { title }),
      createdAt: scanned.createdAt ?? new Date(st.birthtimeMs || st.mtimeMs).toISOString(),
      entries: scanned.entries,
      bytes: st.size,
      mtimeMs: st.mtimeMs,
    };
    this.cache.set(path, { size: st.size, mtimeMs: st.mtimeMs, summary });
    return summary;
  }

  /** Starts a new chat: a fresh id and a file holding just the header, opened for writing. */
  async create(cwd: string, title?: string): Promise<JsonlSessionStore> {
    const id = this.ids.next('s_');
    const create = title === undefined ? { id, cwd } : { id, cwd, title };
    return JsonlSessionStore.open(this.sessionPath(id), this.clock ? { create, clock: this.clock } : { create });
  }

  /** Opens an existing chat; read-only when another window writes it. Throws when it does not exist. `tailFirst`: see OpenOptions. */
  async open(id: string, opts: { readonly readOnly?: boolean; readonly tailFirst?: boolean } = {}): Promise<JsonlSessionStore> {
    const path = this.sessionPath(id);
    const exists = await stat(path).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!exists) throw new Error(`Session ${id} not found in ${this.sessionsDir}`);
    return JsonlSessionStore.open(path, { readOnly: opts.readOnly === true, tailFirst: opts.tailFirst === true });
  }

  /**
   * Deletes a chat: its file, `.corrupt` and `.counts` sidecars, lock and evidence archive. A writer open in this
   * process is closed first; a chat being written by another window is refused.
   */
  async delete(id: string): Promise<void> {
    const path = this.sessionPath(id);
    const mine = openWriterFor(path);
    if (mine) await mine.close();
    else if (await isLockedElsewhere(path)) throw new Error(`Session ${id} is open in another VS Code window; close it there before deleting`);
    await rm(path, { force: true });
    await rm(corruptSidecarPath(path), { force: true });
    await rm(countsSidecarPath(path), { force: true });
    await rm(ownerPath(path), { force: true });
    await rm(lockDirPath(path), { force: true, recursive: true });
    await rm(this.archiveDir(id), { force: true, recursive: true });
    this.cache.delete(path);
  }
}

function checkId(id: string): string {
  // Ids become file names: reject anything that could leave the folder.
  if (!SESSION_ID.test(id)) throw new Error(`Invalid session id: ${JSON.stringify(id)}`);
  return id;
}
