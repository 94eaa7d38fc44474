// The exact ledger of a capsule (docs/behaviour.md#capsule): files, commands, verification, skills and requests, built from the transcript.
import { z } from 'zod';
import type { Entry } from '../transcript/schema.js';
import { PlanSchema, latestPlan, type Plan, type PlanItem } from './taskPlan.js';
import { commandSucceeded, isTestCommand, toolActionsOf } from './toolActions.js';

/** Where the ledger lives inside `CapsuleEntry.details`. */
export const LEDGER_DETAILS_KEY = 'ledger';
/** The ledger keeps this many most recent command runs; older ones are only counted. */
export const MAX_LEDGER_COMMANDS = 300;

export const LedgerCommandSchema = z.object({
  /** The tool call id; repeated input (overlapping spans) never records a run twice. */
  callId: z.string(),
  command: z.string(),
  exitCode: z.number().int().nullable(),
  /** null when the call has no result (cancelled or in progress). */
  ok: z.boolean().nullable(),
});
export type LedgerCommand = z.infer<typeof LedgerCommandSchema>;

export const VerificationSchema = z.object({
  callId: z.string(),
  command: z.string(),
  exitCode: z.number().int().nullable(),
  passed: z.boolean(),
});
export type Verification = z.infer<typeof VerificationSchema>;

export const LedgerSchema = z.object({
  /** The session's first user message, verbatim. */
  originalTask: z.string().nullable(),
  /** The latest user message, verbatim. */
  latestRequest: z.string().nullable(),
  /** Files read successfully, in order of first read. */
  filesRead: z.array(z.string()),
  /** Files changed successfully, in order of first change. */
  filesModified: z.array(z.string()),
  commands: z.array(LedgerCommandSchema),
  /** Older runs dropped from `commands` to bound its size. */
  commandsOmitted: z.number().int().nonnegative(),
  lastVerification: VerificationSchema.nullable(),
  activeSkills: z.array(z.string()),
  /** The agent's plan (update_plan) at the leaf, exactly; null when it never kept one. Older capsules lack it. */
  plan: PlanSchema.nullable().default(null),
});
export type Ledger = z.infer<typeof LedgerSchema>;

export const EMPTY_LEDGER: Ledger = {
  originalTask: null,
  latestRequest: null,
  filesRead: [],
  filesModified: [],
  commands: [],
  commandsOmitted: 0,
  lastVerification: null,
  activeSkills: [],
  plan: null,
};

/** The ledger stored in a capsule's details, or undefined when absent or malformed. */
export function ledgerFromDetails(details: Readonly<Record<string, unknown>> | undefined): Ledger | undefined {
  const parsed = LedgerSchema.safeParse(details?.[LEDGER_DETAILS_KEY]);
  return parsed.success ? parsed.data : undefined;
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

/**
 * Builds the ledger of `entries` (oldest first) merged into `previous` (the previous capsule's
 * ledger), so state recorded before earlier compactions is never lost. Idempotent over overlapping
 * input: passing entries already counted in `previous` adds nothing twice. Only calls with a
 * successful result count as reads or modifications; a failed write changed nothing.
 */
export function buildLedger(entries: readonly Entry[], previous?: Ledger): Ledger {
  const base = previous ?? EMPTY_LEDGER;
  const users = entries.filter((e) => e.type === 'user');
  const read: string[] = [];
  const modified: string[] = [];
  const skills: string[] = [];
  const seen = new Set(base.commands.map((c) => c.callId));
  const commands: LedgerCommand[] = [...base.commands];
  let lastVerification = base.lastVerification;
  for (const a of toolActionsOf(entries)) {
    const succeeded = a.result !== undefined && !a.result.isError;
    if (a.kind === 'read' && succeeded) read.push(...a.paths);
    if (a.kind === 'modify' && succeeded) modified.push(...a.paths);
    if (a.kind === 'skill' && a.skill !== undefined && a.result !== undefined) skills.push(a.skill);
    if (a.kind !== 'command' || a.command === undefined) continue;
    const ok = commandSucceeded(a);
    if (!seen.has(a.callId)) {
      seen.add(a.callId);
      commands.push({ callId: a.callId, command: a.command, exitCode: a.exitCode, ok });
    }
    if (ok !== null && isTestCommand(a.command)) {
      lastVerification = { callId: a.callId, command: a.command, exitCode: a.exitCode, passed: ok };
    }
  }
  const dropped = Math.max(0, commands.length - MAX_LEDGER_COMMANDS);
  return {
    originalTask: base.originalTask ?? users[0]?.content ?? null,
    latestRequest: users[users.length - 1]?.content ?? base.latestRequest,
    filesRead: union(base.filesRead, read),
    filesModified: union(base.filesModified, modified),
    commands: commands.slice(dropped),
    commandsOmitted: base.commandsOmitted + dropped,
    lastVerification,
    activeSkills: union(base.activeSkills, skills),
    plan: ledgerPlan(latestPlan(entries, base.plan)),
  };
}

/** A mutable copy for the stored ledger, whose type is the schema's. */
function ledgerPlan(plan: Plan | null): PlanItem[] | null {
  return plan === null ? null : plan.map((i) => ({ ...i }));
}

/** The plan shown above the composer: the latest capsule's plan, updated by later successful update_plan calls. */
export function planOfBranch(branch: readonly Entry[]): Plan | null {
  let start = 0;
  let previous: Plan | null = null;
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    if (e?.type !== 'capsule') continue;
    start = i + 1;
    previous = ledgerFromDetails(e.details)?.plan ?? null;
    break;
  }
  // Plan calls kept verbatim in the capsule's tail are already in its ledger; replaying them yields the same plan.
  return latestPlan(branch.slice(start), previous);
}
