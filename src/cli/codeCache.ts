// Runs a CommonJS bundle with V8's code cache made for it at build time (docs/performance.md): the bundle's functions start as compiled bytecode instead of being parsed and compiled on every run. A cache made for other bytes, or by another V8, is never used.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire, wrap } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** The cache file starts with these bytes, then the length of the bundle it was made for, that bundle's bytes and V8's data. */
const MAGIC = Buffer.from('capsule-v8-cache-1\n');

/** Set by the build (esbuild.mjs): after this run, write the code cache of what it compiled. */
export const WRITE_CACHE_VAR = 'CAPSULE_WRITE_CODE_CACHE';

export function codeCachePath(bundle: string): string {
  return `${bundle}.v8cache`;
}

/** V8's data when `file` holds exactly the bytes `bundle` holds, else undefined (no cache, another build, a damaged file). */
function cachedDataFor(file: string, bundle: Buffer): Buffer | undefined {
  let cache: Buffer;
  try {
    cache = readFileSync(file);
  } catch {
    return undefined;
  }
  const at = MAGIC.length + 4;
  if (cache.length < at || !cache.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const length = cache.readUInt32LE(MAGIC.length);
  if (length !== bundle.length || cache.length <= at + length || !cache.subarray(at, at + length).equals(bundle)) return undefined;
  return cache.subarray(at + length);
}

/** What a run of the bundle compiled: `used` says whether V8 took the cache. */
export interface CompiledBundle {
  readonly run: () => void;
  readonly used: boolean;
  /** The cache of everything compiled so far, for the build to write. */
  readonly cacheBytes: () => Buffer;
}

/**
 * Compiles `bundle` as Node would require it (the same wrapper, `require` relative to it), with its code cache when one
 * matches. The bundle must hold no `import()`: a script `vm` compiles has none on Node 20 (only through an experimental
 * option, which a code cache drops), so the build turns each into a `require` (scripts/cliBuild.mjs).
 */
export function compileBundle(bundle: string): CompiledBundle {
  const bytes = readFileSync(bundle);
  // A `#!` line is only valid at the very start of a file, not inside the wrapper; the line stays, empty.
  const source = bytes.toString('utf8').replace(/^#!.*/, '');
  const cachedData = cachedDataFor(codeCachePath(bundle), bytes);
  const script = new Script(wrap(source), { filename: bundle, ...(cachedData === undefined ? {} : { cachedData }) });
  const used = cachedData !== undefined && !script.cachedDataRejected;
  const run = (): void => {
    const module = { exports: {} as unknown, filename: bundle, id: bundle, loaded: false };
    const fn = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
    fn.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
    module.loaded = true;
  };
  const cacheBytes = (): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    return Buffer.concat([MAGIC, length, bytes, script.createCachedData()]);
  };
  return { run, used, cacheBytes };
}

/** Runs `bundle` with its code cache; with WRITE_CACHE_VAR set, writes the cache of this run's code when it ends. */
export function runBundle(bundle: string): void {
  const compiled = compileBundle(bundle);
  if (process.env[WRITE_CACHE_VAR] === '1') process.once('exit', () => writeFileSync(codeCachePath(bundle), compiled.cacheBytes()));
  compiled.run();
}
