// Checkpoints where git is missing: a stat walk before and after each command, contents kept compressed by id, and a stat index that outlives the process.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from '../../engine/zod.js';
import type { FileState } from '../snapshots/fileState.js';
import { changedPaths, scanWorkspace, type FileStat, type Scan } from '../snapshots/workspaceScan.js';
import { blobId } from './looseObjects.js';
import type { CommandChange, CommandCheckpointing, StoreBudget, Unkept } from './checkpointTypes.js';

const StateSchema = z.union([z.string().check(z.regex(/^[0-9a-f]{40}$/)), z.null(), z.literal('unavailable')]);
const IndexSchema = z.record(z.string(), z.tuple([z.number(), z.number(), StateSchema]));

interface Entry extends FileStat {
  readonly state: FileState;
}

export interface WalkDeps {
  /** `<session>.files/stat-index.json`. */
  readonly indexFile: string;
  readonly maxFileBytes: number;
  readonly maxScanFiles: number;
  /** Folders and files never walked (the snapshot folder, the session's files). */
  readonly skip: () => readonly string[];
  readonly budget: StoreBudget;
  /** Stores bytes, returns their id. */
  readonly put: (bytes: Uint8Array) => Promise<string>;
  readonly told: (u: Unkept) => void;
}

export class WalkCheckpoints implements CommandCheckpointing {
  private index: Map<string, Entry> | undefined;
  private dirty = false;

  constructor(private readonly deps: WalkDeps) {}

  private async load(): Promise<Map<string, Entry>> {
    if (this.index !== undefined) return this.index;
    const raw = await readFile(this.deps.indexFile, 'utf8')
      .then(
        (t) => IndexSchema.safeParse(JSON.parse(t)),
        () => undefined,
      )
      .catch(() => undefined);
    const map = new Map<string, Entry>();
    if (raw?.success === true) for (const [p, [size, mtimeMs, state]] of Object.entries(raw.data)) map.set(p, { size, mtimeMs, state });
    this.index ??= map;
    return this.index;
  }

  private async save(): Promise<void> {
    if (!this.dirty || this.index === undefined) return;
    this.dirty = false;
    const obj: Record<string, [number, number, FileState]> = {};
    for (const [p, e] of this.index) obj[p] = [e.size, e.mtimeMs, e.state];
    await mkdir(dirname(this.deps.indexFile), { recursive: true });
    const tmp = `${this.deps.indexFile}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, JSON.stringify(obj));
    await rename(tmp, this.deps.indexFile);
  }

  private scan(roots: readonly string[]): Promise<Scan> {
    return scanWorkspace(roots, { maxFiles: this.deps.maxScanFiles, skip: this.deps.skip() });
  }

  /** The state of one file now, keeping its bytes when the store has room (read only when its stat changed). */
  private async keep(path: string, st: FileStat, index: Map<string, Entry>): Promise<FileState> {
    const known = index.get(path);
    if (known !== undefined && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.state;
    let state: FileState;
    if (st.size > this.deps.maxFileBytes) {
      state = 'unavailable';
      this.deps.told({ path, bytes: st.size, why: 'size' });
    } else if (!this.deps.budget.take(st.size)) {
      state = 'unavailable';
      this.deps.told({ path, bytes: st.size, why: 'budget' });
    } else {
      const bytes = await readFile(path).catch(() => undefined);
      state = bytes === undefined ? null : await this.deps.put(bytes);
    }
    index.set(path, { ...st, state });
    this.dirty = true;
    return state;
  }

  async begin(roots: readonly string[]): Promise<{ finish(): Promise<CommandChange[]> }> {
    await this.deps.budget.load();
    const index = await this.load();
    const pre = await this.scan(roots);
    const states = new Map<string, FileState>();
    for (const [path, st] of pre.files) states.set(path, await this.keep(path, st, index));
    for (const p of [...index.keys()]) {
      if (!pre.files.has(p)) {
        index.delete(p);
        this.dirty = true;
      }
    }
    await this.save();
    return {
      finish: async () => {
        const post = await this.scan(roots);
        const out: CommandChange[] = [];
        for (const path of changedPaths(pre, post)) {
          const before = states.get(path) ?? null;
          const st = await lstat(path).catch(() => undefined);
          let after: FileState = null;
          if (st?.isFile() === true) {
            const bytes = st.size > this.deps.maxFileBytes ? undefined : await readFile(path).catch(() => undefined);
            after = bytes === undefined ? 'unavailable' : blobId(bytes);
          }
          // The next walk reads what changed again (its content is kept then, as the next command's "before").
          if (index.delete(path)) this.dirty = true;
          if (before === after && before !== 'unavailable') continue;
          out.push({ path, before, after });
        }
        await this.save();
        return out;
      },
    };
  }

  /** A write outside a command changed `path`: its stat entry no longer says what it holds. */
  forget(path: string): void {
    if (this.index?.delete(path) === true) this.dirty = true;
  }
}
