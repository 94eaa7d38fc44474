// Content of the snapshot folder by id: git blob ids (compressed loose objects, or the shadow repository's), and the SHA-256 files older chats kept.
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BLOB_ID, blobId, readLoose, writeLoose } from '../checkpoints/looseObjects.js';
import { errCode } from '../fsUtil.js';

/** The SHA-256 of bytes: how chats before the shadow store named their contents (64 hex digits). */
export function hashOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const SHA256_ID = /^[0-9a-f]{64}$/;

/** Whether `bytes` is the content a recorded id names, whichever scheme named it. */
export function sameContent(bytes: Uint8Array, id: string): boolean {
  return SHA256_ID.test(id) ? hashOf(bytes) === id : blobId(bytes) === id;
}

/** Reads what loose files do not hold (packed objects, the user's objects the shadow repository borrows). */
export type PackedReader = (id: string) => Promise<Uint8Array | undefined>;

export class ObjectStore {
  constructor(
    /** `<session>.files/objects`: older SHA-256 files, and the compressed objects kept where git is missing. */
    private readonly dir: string,
    /** Where new contents go (the shadow repository's objects, or `dir`). */
    private readonly target: () => Promise<string>,
    /** Other loose folders to read from, and git for the rest. */
    private readonly more: () => Promise<{ readonly dirs: readonly string[]; readonly packed?: PackedReader }>,
    /** Told how many bytes each new content took. */
    private readonly wrote: (bytes: number) => void = () => undefined,
  ) {}

  /** Stores the bytes (once per content, compressed) and returns their id. */
  async put(bytes: Uint8Array): Promise<string> {
    const { id, written } = await writeLoose(await this.target(), bytes);
    this.wrote(written);
    return id;
  }

  /** The bytes of an id; undefined when the object is missing or damaged (its content no longer matches its id). */
  async get(id: string): Promise<Uint8Array | undefined> {
    if (SHA256_ID.test(id)) return this.legacy(id);
    if (!BLOB_ID.test(id)) return undefined;
    const { dirs, packed } = await this.more();
    for (const d of [this.dir, ...dirs]) {
      const bytes = await readLoose(d, id);
      if (bytes !== undefined) return bytes;
    }
    const bytes = await packed?.(id);
    return bytes !== undefined && blobId(bytes) === id ? bytes : undefined;
  }

  private async legacy(hash: string): Promise<Uint8Array | undefined> {
    try {
      const bytes = await readFile(join(this.dir, hash.slice(0, 2), hash.slice(2)));
      return hashOf(bytes) === hash ? bytes : undefined;
    } catch (err) {
      if (errCode(err) === 'ENOENT' || errCode(err) === 'EISDIR') return undefined;
      throw err;
    }
  }

  async deleteAll(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
