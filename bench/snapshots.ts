// File snapshots on a 100-edit session: bytes kept vs the workspace size, and the cost of a captured write vs a bare one (same run).
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSnapshots } from '../src/node/snapshots/fileSnapshots.js';
import { planRestore } from '../src/node/snapshots/restore.js';
import { compare, median, type BenchRow } from './lib.js';

const FILES = 10;
const EDITS = 100;
/** About 4 KB each, like a small source module. */
function body(file: number, version: number): string {
  return [`// version ${version}`, ...Array.from({ length: 100 }, (_, l) => `export const f${file}_${l} = ${l}; // line ${l} of module ${file}`)].join('\n');
}

export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-bench-snap-'));
  try {
    const ws = join(dir, 'ws');
    await mkdir(ws);
    let workspaceBytes = 0;
    for (let f = 0; f < FILES; f++) {
      const text = body(f, 0);
      workspaceBytes += Buffer.byteLength(text);
      await writeFile(join(ws, `m${f}.ts`), text);
    }
    let moment = 0;
    const snaps = new FileSnapshots({ dir: join(dir, 'store'), roots: [ws], leaf: () => `m${moment}` });
    const captured: number[] = [];
    const bare: number[] = [];
    for (let i = 1; i <= EDITS; i++) {
      moment = i;
      const p = join(ws, `m${i % FILES}.ts`);
      const t0 = performance.now();
      await snaps.aroundWrite(p, () => writeFile(p, body(i % FILES, i)));
      captured.push(performance.now() - t0);
      const t1 = performance.now();
      await writeFile(join(dir, 'bare.ts'), body(i % FILES, i));
      bare.push(performance.now() - t1);
    }
    const storeBytes = await snaps.storedBytes();
    const t2 = performance.now();
    const plan = await planRestore(snaps, (id) => (id === null ? -1 : Number(id.slice(1))), 0);
    const planMs = performance.now() - t2;
    return [
      compare(`write_file with snapshot (${EDITS} edits, ${FILES} files)`, median(captured), 'bare write', median(bare), EDITS, {
        storeKB: Math.round(storeBytes / 1024),
        workspaceKB: Math.round(workspaceBytes / 1024),
        storePerEditKB: Math.round(storeBytes / EDITS / 102.4) / 10,
        restorePlanMs: Math.round(planMs),
        filesToRestore: plan.files.length,
      }),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
}
