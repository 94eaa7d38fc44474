// The difference between the instruction state the model saw and the one in force now, worded as one system update (docs/behaviour.md#cache-epochs).
import { CHRONOLOGICAL_UPDATE_REASON } from '../transcript/modelInput.js';
import type { Entry } from '../transcript/schema.js';
import { renderSource, type InstructionSource, type SourceStamp } from './sources.js';

/** `reason` of the system update that carries the whole instruction block (a session's start). */
export const INSTRUCTIONS_REASON = 'instructions';
/** `reason` of a system update that carries only what changed: it reaches the model where it happened (see modelInput.ts). */
export const INSTRUCTIONS_UPDATE_REASON = CHRONOLOGICAL_UPDATE_REASON;

/** True for the appends a fresh epoch base replaces by the current block. */
export function isInstructionReason(reason: string | undefined): boolean {
  return reason === INSTRUCTIONS_REASON || reason === INSTRUCTIONS_UPDATE_REASON;
}

/** The instruction sources the model saw on this branch (the latest entry that recorded them), or undefined when none ever did. */
export function stampsInForce(branch: readonly Entry[]): readonly SourceStamp[] | undefined {
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    if (e?.type === 'system_update' && e.sources !== undefined) return e.sources;
  }
  return undefined;
}

export interface InstructionChange {
  readonly added: readonly InstructionSource[];
  readonly changed: readonly InstructionSource[];
  readonly removed: readonly SourceStamp[];
}

export function diffSources(seen: readonly SourceStamp[], now: readonly InstructionSource[]): InstructionChange {
  const before = new Map(seen.map((s) => [s.key, s.hash]));
  const keys = new Set(now.map((s) => s.key));
  return {
    added: now.filter((s) => !before.has(s.key)),
    changed: now.filter((s) => before.has(s.key) && before.get(s.key) !== s.hash),
    removed: seen.filter((s) => !keys.has(s.key)),
  };
}

function isEmptyChange(c: InstructionChange): boolean {
  return c.added.length === 0 && c.changed.length === 0 && c.removed.length === 0;
}

/** How a source that is no longer in force is named to the model. */
function removedLine(s: SourceStamp): string {
  if (s.key.startsWith('mode:'))
    return '## Mode: Agent\nThe chat is back in Agent mode: you may edit files and run commands again (each as approved by the user).';
  return `## ${s.key.replace(/^[a-z]+:/, '')} no longer applies\nDisregard the instructions it gave.`;
}

/**
 * One chronological update with the whole current text of every changed or new source, so the model never has to
 * merge a patch; removals are named. Undefined when nothing changed.
 */
export function renderChange(c: InstructionChange): string | undefined {
  if (isEmptyChange(c)) return undefined;
  const parts = [
    '# Instruction update (from Capsule, not written by the user)',
    'These replace the earlier text of the same sources; everything else stays as it was.',
  ];
  for (const s of c.changed) parts.push(renderSource({ ...s, label: `${s.label} (changed; it now reads)` }));
  for (const s of c.added) parts.push(renderSource(s.kind === 'file' ? { ...s, label: `${s.label} (now applies)` } : s));
  for (const s of c.removed) parts.push(removedLine(s));
  return parts.join('\n\n');
}
