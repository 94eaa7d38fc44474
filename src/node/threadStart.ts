// Where a worker thread's script is: bundled next to the bundle that runs (dist/<name>.js), or its source under tsx.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Test seam: another script for a named thread (a missing file, to see the caller do without the thread). */
export const threadScripts = new Map<string, string>();

/**
 * How the thread `name` starts: `dist/<name>.js` next to the bundle that runs (esbuild.mjs builds one per thread), or,
 * run from sources, `src/node/<name>.ts` through tsx's require hook (a worker does not inherit `--import tsx`).
 * Undefined when neither is there.
 */
function scriptOf(name: string): { readonly script: string; readonly evaluated: boolean } | undefined {
  const override = threadScripts.get(name);
  if (override !== undefined) return { script: override, evaluated: false };
  const bundled = join(__dirname, `${name}.js`);
  if (existsSync(bundled)) return { script: bundled, evaluated: false };
  const source = join(__dirname, `${name}.ts`);
  if (!__filename.endsWith('.ts') || !existsSync(source)) return undefined;
  try {
    const hook = createRequire(__filename).resolve('tsx/cjs');
    return { script: `require(${JSON.stringify(hook)}); require(${JSON.stringify(source)});`, evaluated: true };
  } catch {
    return undefined;
  }
}

/** Starts the thread `name` with `options`, or returns undefined when its script cannot be found here. */
export function startThread(name: string, options: Omit<WorkerOptions, 'eval'> = {}): Worker | undefined {
  const start = scriptOf(name);
  return start === undefined ? undefined : new Worker(start.script, { ...options, eval: start.evaluated });
}
