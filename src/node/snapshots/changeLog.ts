// The append-only log of workspace file changes a session made: one JSON line per changed path, with the content hashes before and after.
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { readJsonLines } from '../fsUtil.js';

/**
 * A content id (a git blob id, 40 hex digits; chats from before the shadow store used SHA-256, 64), `null` for "the
 * file did not exist", or `unavailable` when the content was not kept (too large, store full).
 */
const StateSchema = z.union([z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/), z.null(), z.literal('unavailable')]);
export type FileState = z.infer<typeof StateSchema>;

export const ChangeSchema = z.object({
  /** Absolute real path. */
  path: z.string().min(1),
  /** The session's newest entry (file order) when the change happened: the file's order is the order of changes on disk. */
  leaf: z.string().nullable(),
  before: StateSchema,
  after: StateSchema,
  why: z.enum(['write', 'command', 'restore']),
  at: z.string(),
});
export type Change = z.infer<typeof ChangeSchema>;

export class ChangeLog {
  private loaded: Change[] | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Lines that did not parse when the log was read (a torn last line after a crash, or damage). */
  skippedLines = 0;

  constructor(readonly file: string) {}

  all(): Promise<readonly Change[]> {
    return this.load();
  }

  private async load(): Promise<Change[]> {
    if (this.loaded !== undefined) return this.loaded;
    const r = await readJsonLines(this.file, (raw) => {
      const c = ChangeSchema.safeParse(raw);
      return c.success ? c.data : undefined;
    });
    this.skippedLines = r.skipped;
    this.loaded = r.items;
    return r.items;
  }

  /** Appends changes in call order, each as one whole line. */
  async append(changes: readonly Change[]): Promise<void> {
    if (changes.length === 0) return;
    const list = await this.load();
    const run = this.writing.then(async () => {
      await mkdir(dirname(this.file), { recursive: true });
      // A torn last line (crash mid-write) must not glue itself to the next one: every write starts on a fresh line.
      await appendFile(this.file, `\n${changes.map((c) => JSON.stringify(c)).join('\n')}\n`, 'utf8');
      list.push(...changes);
    });
    this.writing = run.catch(() => undefined);
    return run;
  }
}
