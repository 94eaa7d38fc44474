// What the two checkpoint stores (shadow git, and the object folder used without git) report around a command, and the budget they share.
import { readdir, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Rename } from '../../engine/transcript/effects.js';
import type { FileState } from '../snapshots/fileState.js';

/** One file a command changed: its absolute path and its content before and after (ids, null for absent, or unavailable). */
export interface CommandChange {
  readonly path: string;
  readonly before: FileState;
  readonly after: FileState;
}

/** A file whose content could not be kept, and why. */
export interface Unkept {
  readonly path: string;
  readonly bytes: number;
  readonly why: 'size' | 'budget';
}

/** Before a command: the snapshot is up to date; finish() (after it) lists what the command changed. */
export interface CommandCheckpointing {
  begin(roots: readonly string[]): Promise<{ finish(): Promise<CommandChange[]> }>;
}

/** What changed files a command made, by absolute path, as the checkpoint measured them. */
export interface MeasuredEffects {
  readonly created: string[];
  readonly modified: string[];
  readonly deleted: string[];
  readonly renamed: Rename[];
  readonly unknown?: string;
}

/** A checkpoint taken right before a command; finish() right after it logs what changed and returns the effects. */
export interface CommandCheckpoint {
  finish(): Promise<MeasuredEffects>;
}

/** What a tool host calls around the tools that change files. */
export interface FileCapture {
  aroundWrite<T>(path: string, run: () => Promise<T>): Promise<T>;
  /** Takes the checkpoint a command starts from (after its approval, right before it runs). */
  beforeCommand(): Promise<CommandCheckpoint>;
}

async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop() ?? '';
    const names = await readdir(d, { withFileTypes: true }).catch(() => []);
    for (const n of names) {
      const p = join(d, n.name);
      if (n.isDirectory()) stack.push(p);
      else total += (await lstat(p).catch(() => undefined))?.size ?? 0;
    }
  }
  return total;
}

/**
 * The store's byte budget: what the folder held when first asked (walked once per process), plus what this process
 * adds. Contents are counted at their size on disk before compression, so the budget errs on the safe side.
 */
export class StoreBudget {
  private used: number | undefined;

  constructor(
    private readonly dirs: readonly string[],
    readonly max: number,
  ) {}

  async load(): Promise<void> {
    if (this.used !== undefined) return;
    let total = 0;
    for (const d of this.dirs) total += await bytesUnder(d);
    this.used ??= total;
  }

  /** Reserves room for `bytes`; false when they would pass the budget. */
  take(bytes: number): boolean {
    const used = this.used ?? 0;
    if (used + bytes > this.max) return false;
    this.used = used + bytes;
    return true;
  }

  add(bytes: number): void {
    this.used = (this.used ?? 0) + bytes;
  }

  get bytes(): number {
    return this.used ?? 0;
  }
}
