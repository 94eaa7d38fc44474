// Project Memory (docs/behaviour.md#portable): one workspace-level .capsule.md that explicit /compact capsules may be mirrored into.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CapsuleMeta, ParsedCapsuleFile } from '../engine/portable/capsuleFile.js';
import { memoryBodyOf, projectMemoryUpdate, shouldMirror } from '../engine/portable/memoryPolicy.js';
import { counterForModel } from './tokenCounter.js';
import type { CapsuleEntry } from '../engine/transcript/schema.js';
import { CapsuleFileError, readCapsuleFile, sha256Hex, writeCapsuleFile } from './capsuleFiles.js';

export const PROJECT_MEMORY_FILE = 'project-memory.capsule.md';

export interface MemoryMeta {
  readonly title: string;
  readonly quality: 'full' | 'partial' | 'degraded';
  readonly sourceSession?: string;
  readonly sourceCheckpoint?: string;
  readonly model?: string;
  /** ISO time the capsule was made; defaults to now. */
  readonly created?: string;
}

export interface MirrorContext {
  /** The compaction's verdict on the capsule (validateCapsule passed). */
  readonly validated: boolean;
  readonly sessionId: string;
  readonly model?: string;
  readonly title?: string;
}

/**
 * The memory file lives in the workspace storage folder (next to `sessions/`). The user may edit it
 * by hand, so reading accepts a body whose checksum no longer matches (and says so in the update);
 * everything else a capsule file must satisfy still holds. Reads and writes keep the last good state
 * so `asSystemUpdate()` is synchronous for the prompt builder.
 */
export class ProjectMemory {
  readonly path: string;
  private current: ParsedCapsuleFile | undefined;
  private lastProblem: string | undefined;
  private readonly now: () => Date;

  constructor(root: string, deps: { readonly now?: () => Date } = {}) {
    this.path = join(root, PROJECT_MEMORY_FILE);
    this.now = deps.now ?? (() => new Date());
  }

  /** Why the file on disk could not be used at the last read, if it could not. */
  get problem(): string | undefined {
    return this.lastProblem;
  }

  /** Loads the file; undefined when there is none. Throws CapsuleFileError for a file that is not a valid capsule. */
  async read(): Promise<ParsedCapsuleFile | undefined> {
    try {
      this.current = await readCapsuleFile(this.path, { allowModified: true });
      this.lastProblem = undefined;
    } catch (err) {
      this.current = undefined;
      if (err instanceof CapsuleFileError && err.kind === 'not_found') {
        this.lastProblem = undefined;
        return undefined;
      }
      this.lastProblem = err instanceof Error ? err.message : String(err);
      throw err;
    }
    return this.current;
  }

  /** Replaces the memory with a capsule's text (atomically); the text must hold the seven sections. */
  async write(capsuleText: string, meta: MemoryMeta): Promise<ParsedCapsuleFile> {
    const counter = counterForModel(meta.model ?? 'gpt-4o');
    const full: CapsuleMeta = {
      id: `cap_${sha256Hex(capsuleText).slice(0, 20)}`,
      title: meta.title,
      created: meta.created ?? this.now().toISOString(),
      ...(meta.sourceSession === undefined ? {} : { sourceSession: meta.sourceSession }),
      ...(meta.sourceCheckpoint === undefined ? {} : { sourceCheckpoint: meta.sourceCheckpoint }),
      ...(meta.model === undefined ? {} : { model: meta.model }),
      quality: meta.quality,
      tokens: counter.count(capsuleText),
    };
    const written = await writeCapsuleFile(this.path, full, capsuleText, { force: true });
    this.current = { meta: written.meta, body: written.body, modified: false, hasLedger: written.hasLedger, checksum: written.checksum };
    this.lastProblem = undefined;
    return this.current;
  }

  /**
   * Mirrors a capsule entry when the rules allow it (shouldMirror): only an explicit, validated,
   * non-degraded /compact capsule. Returns whether it was written.
   */
  async mirror(entry: CapsuleEntry, ctx: MirrorContext): Promise<boolean> {
    if (!shouldMirror(entry.trigger, entry.quality, ctx.validated)) return false;
    await this.write(memoryBodyOf(entry), {
      title: ctx.title ?? `Project memory from ${entry.checkpointId}`,
      quality: entry.quality,
      sourceSession: ctx.sessionId,
      sourceCheckpoint: entry.checkpointId,
      created: entry.timestamp,
      ...(ctx.model === undefined ? {} : { model: ctx.model }),
    });
    return true;
  }

  /** Deletes the memory file. */
  async clear(): Promise<void> {
    await rm(this.path, { force: true });
    this.current = undefined;
    this.lastProblem = undefined;
  }

  /** The system update (docs/behaviour.md#cache-epochs) that carries the memory into the prompt, labelled as data; undefined when there is none. */
  asSystemUpdate(): string | undefined {
    return this.current === undefined ? undefined : projectMemoryUpdate(this.current);
  }
}
