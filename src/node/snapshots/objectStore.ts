// Content-addressed file contents (sha256) in a folder of workspace storage: each distinct content is stored once, checked on read.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errCode } from '../fsUtil.js';

export function hashOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class ObjectStore {
  /** Bytes written by this process plus what was there at the first size query. */
  private sizeKnown: number | undefined;

  constructor(private readonly dir: string) {}

  private pathOf(hash: string): string {
    return join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  /** Stores the bytes (once per content) and returns their hash. */
  async put(bytes: Uint8Array): Promise<string> {
    const hash = hashOf(bytes);
    const target = this.pathOf(hash);
    if (await stat(target).then(() => true, () => false)) return hash;
    await mkdir(join(this.dir, hash.slice(0, 2)), { recursive: true });
    // Temp file + rename: a crash leaves either no object or a whole one, never a half one with a valid name.
    const tmp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, target);
    if (this.sizeKnown !== undefined) this.sizeKnown += bytes.byteLength;
    return hash;
  }

  /** The bytes of a hash; undefined when the object is missing or damaged (its content no longer matches its name). */
  async get(hash: string): Promise<Uint8Array | undefined> {
    try {
      const bytes = await readFile(this.pathOf(hash));
      return hashOf(bytes) === hash ? bytes : undefined;
    } catch (err) {
      if (errCode(err) === 'ENOENT' || errCode(err) === 'EISDIR') return undefined;
      throw err;
    }
  }

  /** Total bytes stored (walked once, then kept up to date by put). */
  async size(): Promise<number> {
    if (this.sizeKnown !== undefined) return this.sizeKnown;
    let total = 0;
    const shards = await readdir(this.dir).catch(() => [] as string[]);
    for (const s of shards) {
      const names = await readdir(join(this.dir, s)).catch(() => [] as string[]);
      for (const n of names) total += (await stat(join(this.dir, s, n)).catch(() => undefined))?.size ?? 0;
    }
    this.sizeKnown = total;
    return total;
  }

  async deleteAll(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
    this.sizeKnown = 0;
  }
}
