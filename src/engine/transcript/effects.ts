// The effects of one tool call as structured data on its tool_result entry: files touched, exit status, and whether they were measured or inferred.
import { z } from 'zod';

const path = z.string().min(1).max(4096);
const paths = z.array(path).default([]);

export const RenameSchema = z.object({ from: path, to: path });
export type Rename = z.infer<typeof RenameSchema>;

/** One command a subagent ran, carried on its `task` result so the parent's ledger records it like its own (docs/subagents.md#results). */
export const ChildCommandSchema = z.object({
  /** The child's own call id (the ledger never records a run twice). */
  callId: z.string().min(1).max(200),
  command: z.string().max(4000),
  exitCode: z.number().int().nullable(),
  /** null when the call has no result (the child was cancelled mid-call). */
  ok: z.boolean().nullable(),
  timedOut: z.boolean().optional(),
  denied: z.boolean().optional(),
  /** A test runner's own summary line from the output, e.g. "3 passed, 1 failed". */
  summary: z.string().max(500).optional(),
});
export type ChildCommand = z.infer<typeof ChildCommandSchema>;

/**
 * Optional on every tool_result (sessions written before effects existed still load).
 * `measured`: Capsule observed the file system before and after the call (its own agent).
 * `inferred`: read from the call's arguments and result text (imported sessions, or old entries); may be wrong.
 * Paths are relative to the workspace root with forward slashes. `unknown` says why the file effects could
 * not be measured (then the file lists are empty or partial, never guessed).
 */
export const EffectsSchema = z.object({
  source: z.enum(['measured', 'inferred']),
  created: paths,
  modified: paths,
  deleted: paths,
  renamed: z.array(RenameSchema).default([]),
  read: paths,
  /** null: the process ended without an exit code (killed by a signal, or never started). */
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().max(40).optional(),
  timedOut: z.boolean().optional(),
  cancelled: z.boolean().optional(),
  /** The user declined the call; nothing ran. */
  denied: z.boolean().optional(),
  /** The call failed (non-zero exit, tool error, flagged error result). */
  failed: z.boolean().optional(),
  durationMs: z.number().nonnegative().optional(),
  /** Why the file effects are unknown, e.g. "workspace too large (more than 20000 files)". */
  unknown: z.string().max(500).optional(),
  /** On a `task` result: the commands its subagent ran, in order. */
  commands: z.array(ChildCommandSchema).max(1000).optional(),
});
export type Effects = z.infer<typeof EffectsSchema>;
/** What producers write: every list may be left out. */
export type EffectsInput = z.input<typeof EffectsSchema>;

/** A complete Effects value from a partial one. */
export function effects(input: EffectsInput): Effects {
  return {
    source: input.source,
    created: [...(input.created ?? [])],
    modified: [...(input.modified ?? [])],
    deleted: [...(input.deleted ?? [])],
    renamed: [...(input.renamed ?? [])],
    read: [...(input.read ?? [])],
    ...(input.exitCode === undefined ? {} : { exitCode: input.exitCode }),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
    ...(input.timedOut === undefined ? {} : { timedOut: input.timedOut }),
    ...(input.cancelled === undefined ? {} : { cancelled: input.cancelled }),
    ...(input.denied === undefined ? {} : { denied: input.denied }),
    ...(input.failed === undefined ? {} : { failed: input.failed }),
    ...(input.durationMs === undefined ? {} : { durationMs: input.durationMs }),
    ...(input.unknown === undefined ? {} : { unknown: input.unknown }),
    ...(input.commands === undefined ? {} : { commands: input.commands.map((c) => ({ ...c })) }),
  };
}

/** True when the effects name at least one file. */
export function touchesFiles(e: Effects): boolean {
  return e.created.length + e.modified.length + e.deleted.length + e.renamed.length > 0;
}
