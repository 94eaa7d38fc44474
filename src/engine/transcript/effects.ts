// The effects of one tool call as structured data on its tool_result entry: files touched, exit status, and whether they were measured or inferred.
import * as z from '../zod.js';

const path = z.string().check(z.minLength(1), z.maxLength(4096));
const paths = z._default(z.array(path), []);

export const RenameSchema = z.object({ from: path, to: path });
export type Rename = z.infer<typeof RenameSchema>;

/** One command a subagent ran, carried on its `task` result so the parent's ledger records it like its own (docs/subagents.md#results). */
const ChildCommandSchema = z.object({
  /** The child's own call id (the ledger never records a run twice). */
  callId: z.string().check(z.minLength(1), z.maxLength(200)),
  command: z.string().check(z.maxLength(4000)),
  exitCode: z.nullable(z.number().check(z.int())),
  /** null when the call has no result (the child was cancelled mid-call). */
  ok: z.nullable(z.boolean()),
  timedOut: z.optional(z.boolean()),
  denied: z.optional(z.boolean()),
  /** A test runner's own summary line from the output, e.g. "3 passed, 1 failed". */
  summary: z.optional(z.string().check(z.maxLength(500))),
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
  renamed: z._default(z.array(RenameSchema), []),
  read: paths,
  /** null: the process ended without an exit code (killed by a signal, or never started). */
  exitCode: z.optional(z.nullable(z.number().check(z.int()))),
  signal: z.optional(z.string().check(z.maxLength(40))),
  timedOut: z.optional(z.boolean()),
  cancelled: z.optional(z.boolean()),
  /** The user declined the call; nothing ran. */
  denied: z.optional(z.boolean()),
  /** The call failed (non-zero exit, tool error, flagged error result). */
  failed: z.optional(z.boolean()),
  durationMs: z.optional(z.number().check(z.nonnegative())),
  /** Why the file effects are unknown, e.g. "workspace too large (more than 20000 files)". */
  unknown: z.optional(z.string().check(z.maxLength(500))),
  /** On a `task` result: the commands its subagent ran, in order. */
  commands: z.optional(z.array(ChildCommandSchema).check(z.maxLength(1000))),
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
