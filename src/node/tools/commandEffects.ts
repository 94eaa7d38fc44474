// Connects run_command to the effect probe: which root to measure, and the Effects record of one finished command.
import { join } from 'node:path';
import { effects, type Effects } from '../../engine/transcript/effects.js';
import { type EffectProbe, type FileEffects, startEffectProbe } from '../effects/probe.js';
import type { FileCapture } from '../checkpoints/checkpointTypes.js';
import { displayPath, isInside, realRoots } from './paths.js';

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
}

/** A probe on the workspace folder that holds `cwd`; its paths come back as the tools show them (relative to the first root). */
export async function startCommandProbe(roots: readonly string[], cwd: string): Promise<EffectProbe> {
  const reals = await realRoots(roots);
  const root = reals.find((r) => isInside(r, cwd));
  if (root === undefined)
    return { finish: () => Promise.resolve({ created: [], modified: [], deleted: [], renamed: [], unknown: 'the command ran outside the workspace folders' }) };
  const probe = await startEffectProbe(root);
  const show = (p: string): string => displayPath(reals, join(root, p));
  return {
    async finish(): Promise<FileEffects> {
      const f = await probe.finish();
      return {
        created: f.created.map(show),
        modified: f.modified.map(show),
        deleted: f.deleted.map(show),
        renamed: f.renamed.map((r) => ({ from: show(r.from), to: show(r.to) })),
        ...(f.unknown === undefined ? {} : { unknown: f.unknown }),
      };
    },
  };
}

/** The effects a command's checkpoint measured (absolute paths), shown as the tools show paths. */
export async function checkpointProbe(capture: FileCapture, roots: readonly string[]): Promise<EffectProbe> {
  const ck = await capture.beforeCommand();
  return {
    async finish(): Promise<FileEffects> {
      const [f, reals] = await Promise.all([ck.finish(), realRoots(roots)]);
      const show = (p: string): string => displayPath(reals, p);
      return {
        created: f.created.map(show),
        modified: f.modified.map(show),
        deleted: f.deleted.map(show),
        renamed: f.renamed.map((r) => ({ from: show(r.from), to: show(r.to) })),
        ...(f.unknown === undefined ? {} : { unknown: f.unknown }),
      };
    },
  };
}

export function commandEffects(o: Outcome, files: FileEffects, durationMs: number, failed: boolean): Effects {
  const sorted = (xs: readonly string[]): string[] => [...xs].sort();
  return effects({
    source: 'measured',
    created: sorted(files.created),
    modified: sorted(files.modified),
    deleted: sorted(files.deleted),
    renamed: files.renamed,
    exitCode: o.code,
    ...(o.signal === null ? {} : { signal: o.signal }),
    ...(o.timedOut ? { timedOut: true } : {}),
    ...(o.cancelled ? { cancelled: true } : {}),
    failed,
    durationMs: Math.max(0, durationMs),
    ...(files.unknown === undefined ? {} : { unknown: files.unknown }),
  });
}
