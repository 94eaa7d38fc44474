// The exact ledger of a capsule (docs/behaviour.md#capsule, docs/ledger.md): files, commands, verification, skills and requests, built from the transcript's recorded effects.
import * as z from '../zod.js';
import { LedgerMcpCallSchema, mcpLedgerOf } from './mcpLedger.js';
import { personText } from '../effects/personText.js';
import { isTestCommand, summaryFailed } from '../effects/testRunners.js';
import { RenameSchema } from '../transcript/effects.js';
import type { Entry } from '../transcript/schema.js';
import { actionFiles, commandSucceeded, resultTestSummary, statusInferred, toolActionsOf } from './toolActions.js';
import { PlanSchema, latestPlan, type Plan, type PlanItem } from './taskPlan.js';

/** Where the ledger lives inside `CapsuleEntry.details`. */
export const LEDGER_DETAILS_KEY = 'ledger';
/** The ledger keeps this many most recent command runs; older ones are only counted. */
export const MAX_LEDGER_COMMANDS = 300;

const LedgerCommandSchema = z.object({
  /** The tool call id; repeated input (overlapping spans) never records a run twice. */
  callId: z.string(),
  command: z.string(),
  exitCode: z.nullable(z.number().check(z.int())),
  /** null when the call has no result (cancelled or in progress). */
  ok: z.nullable(z.boolean()),
  /** The status was read from the result text (imported sessions), not recorded by the tool. */
  inferred: z.optional(z.boolean()),
  timedOut: z.optional(z.boolean()),
  denied: z.optional(z.boolean()),
  /** Why the command's file effects are unknown. */
  effectsUnknown: z.optional(z.string()),
});
export type LedgerCommand = z.infer<typeof LedgerCommandSchema>;

const VerificationSchema = z.object({
  callId: z.string(),
  command: z.string(),
  exitCode: z.nullable(z.number().check(z.int())),
  passed: z.boolean(),
  /** The runner's own summary line, e.g. "12 passed, 1 failed in 0.4s". */
  summary: z.optional(z.string()),
  inferred: z.optional(z.boolean()),
});

const LedgerSchema = z.object({
  /** The session's first request in the person's own words. */
  originalTask: z.nullable(z.string()),
  /** The latest request in the person's own words. */
  latestRequest: z.nullable(z.string()),
  /** Files read successfully, least recently read first. */
  filesRead: z.array(z.string()),
  /** Files created or changed and still present, least recently changed first. */
  filesModified: z.array(z.string()),
  /** The subset of filesModified that the session created. */
  filesCreated: z._default(z.array(z.string()), []),
  filesDeleted: z._default(z.array(z.string()), []),
  renamed: z._default(z.array(RenameSchema), []),
  /** Paths whose record was inferred from command text rather than measured. */
  inferredFiles: z._default(z.array(z.string()), []),
  commands: z.array(LedgerCommandSchema),
  /** Older runs dropped from `commands` to bound its size. */
  commandsOmitted: z.number().check(z.int(), z.nonnegative()),
  lastVerification: z.nullable(VerificationSchema),
  activeSkills: z.array(z.string()),
  /** The chat mode in force (docs/user/chat.md#modes), when the session records its instruction sources; older capsules lack it. */
  mode: z.optional(z.enum(['agent', 'ask'])),
  /** The agent's plan (update_plan) at the leaf, exactly; null when it never kept one. Older capsules lack it. */
  plan: z._default(z.nullable(PlanSchema), null),
  /** MCP calls (server, tool, status, error), newest last; absent when the session made none (and in older capsules). */
  mcpCalls: z.optional(z.array(LedgerMcpCallSchema)),
  /** MCP tools the model loaded with mcp_tools: the set in force beyond the tool list; absent when none. */
  mcpToolsLoaded: z.optional(z.array(z.string())),
});
export type Ledger = z.infer<typeof LedgerSchema>;

export const EMPTY_LEDGER: Ledger = {
  originalTask: null,
  latestRequest: null,
  filesRead: [],
  filesModified: [],
  filesCreated: [],
  filesDeleted: [],
  renamed: [],
  inferredFiles: [],
  commands: [],
  commandsOmitted: 0,
  lastVerification: null,
  activeSkills: [],
  plan: null,
};

export interface LedgerOptions {
  /** The workspace root: absolute paths inside it are stored relative to it. */
  readonly root?: string;
  /** Project-specific test commands (the `capsule.ledger.testCommands` setting). */
  readonly testPatterns?: readonly RegExp[];
}

/** The ledger stored in a capsule's details, or undefined when absent or malformed. */
export function ledgerFromDetails(details: Readonly<Record<string, unknown>> | undefined): Ledger | undefined {
  const parsed = LedgerSchema.safeParse(details?.[LEDGER_DETAILS_KEY]);
  return parsed.success ? parsed.data : undefined;
}

/** ledgerPath with `root` fixed: the root is normalized once, not for every path of a long span. */
export function pathsRelativeTo(root?: string): (p: string) => string {
  const r = root?.replace(/\\/g, '/').replace(/\/+$/, '');
  return (p) => {
    let out = p
      .trim()
      .replace(/\\/g, '/')
      .replace(/^(\.\/)+/, '');
    if (r !== undefined && r !== '' && out.startsWith(`${r}/`)) out = out.slice(r.length + 1);
    else if (r !== undefined && out === r) out = '.';
    return out;
  };
}

/** An ordered set whose order is "least recently touched first" (a Map keeps insertion order; a touch re-inserts). */
class Recent {
  private readonly items: Map<string, true>;
  constructor(init: readonly string[]) {
    this.items = new Map(init.map((p) => [p, true]));
  }
  touch(p: string): void {
    this.items.delete(p);
    this.items.set(p, true);
  }
  drop(p: string): boolean {
    return this.items.delete(p);
  }
  has(p: string): boolean {
    return this.items.has(p);
  }
  list(): string[] {
    return [...this.items.keys()];
  }
}

/**
 * Builds the ledger of `entries` (oldest first) merged into `previous` (the previous capsule's ledger), so state
 * recorded before earlier compactions is never lost. Idempotent over overlapping input: entries already counted in
 * `previous` move nothing twice. Files come from each call's recorded effects (measured by Capsule's own tools) or,
 * for imported and older sessions, from its arguments and command text (marked inferred); a failed call touched
 * nothing. Renames replace the old name; deleted files leave the modified list.
 */
export function buildLedger(entries: readonly Entry[], previous?: Ledger, opts: LedgerOptions = {}): Ledger {
  const base = previous ?? EMPTY_LEDGER;
  const rel = pathsRelativeTo(opts.root);
  const read = new Recent(base.filesRead);
  const modified = new Recent(base.filesModified);
  const created = new Set(base.filesCreated);
  const deleted = new Recent(base.filesDeleted);
  const inferred = new Set(base.inferredFiles);
  const renamed = [...base.renamed];
  const skills: string[] = [...base.activeSkills];
  const seen = new Set(base.commands.map((c) => c.callId));
  const commands: LedgerCommand[] = [...base.commands];
  let lastVerification = base.lastVerification;
  const mark = (p: string, wasInferred: boolean): void => {
    if (wasInferred) inferred.add(p);
    else inferred.delete(p);
  };
  for (const a of toolActionsOf(entries)) {
    const f = actionFiles(a);
    for (const p of f.read.map(rel)) {
      read.touch(p);
      mark(p, f.inferred);
    }
    for (const r of f.renamed) {
      const from = rel(r.from);
      const to = rel(r.to);
      const wasCreated = created.delete(from);
      modified.drop(from);
      modified.touch(to);
      if (wasCreated) created.add(to);
      if (!renamed.some((x) => x.from === from && x.to === to)) renamed.push({ from, to });
      mark(to, f.inferred);
    }
    for (const p of f.created.map(rel)) {
      modified.touch(p);
      if (!deleted.drop(p)) created.add(p);
      mark(p, f.inferred);
    }
    for (const p of f.modified.map(rel)) {
      modified.touch(p);
      deleted.drop(p);
      mark(p, f.inferred);
    }
    for (const p of f.deleted.map(rel)) {
      const wasCreated = created.delete(p);
      modified.drop(p);
      // A file the session created and then removed left no trace on disk.
      if (!wasCreated) deleted.touch(p);
      mark(p, f.inferred);
    }
    if (a.kind === 'skill' && a.skill !== undefined && a.result !== undefined && !a.result.isError && !skills.includes(a.skill)) skills.push(a.skill);
    // A subagent's commands (on its task's result) count as the session's own runs.
    for (const c of a.result?.effects?.commands ?? []) {
      if (!seen.has(c.callId)) {
        seen.add(c.callId);
        commands.push({
          callId: c.callId,
          command: c.command,
          exitCode: c.exitCode,
          ok: c.ok,
          ...(c.timedOut === true ? { timedOut: true } : {}),
          ...(c.denied === true ? { denied: true } : {}),
        });
      }
      if (c.ok !== null && c.denied !== true && isTestCommand(c.command, opts.testPatterns)) {
        const passed = c.summary !== undefined && summaryFailed(c.summary) === true ? false : c.ok;
        lastVerification = { callId: c.callId, command: c.command, exitCode: c.exitCode, passed, ...(c.summary === undefined ? {} : { summary: c.summary }) };
      }
    }
    if (a.kind !== 'command' || a.command === undefined) continue;
    const ok = commandSucceeded(a);
    const guessed = statusInferred(a);
    const e = a.result?.effects;
    if (!seen.has(a.callId)) {
      seen.add(a.callId);
      commands.push({
        callId: a.callId,
        command: a.command,
        exitCode: a.exitCode,
        ok,
        ...(guessed ? { inferred: true } : {}),
        ...(e?.timedOut === true ? { timedOut: true } : {}),
        ...(e?.denied === true ? { denied: true } : {}),
        ...(e?.unknown === undefined ? {} : { effectsUnknown: e.unknown }),
      });
    }
    if (ok !== null && e?.denied !== true && isTestCommand(a.command, opts.testPatterns)) {
      const summary = a.result ? resultTestSummary(a.result) : undefined;
      // A runner piped into `tail` exits with tail's status; its own summary line says how the run went.
      const passed = summary !== undefined && summaryFailed(summary) === true ? false : ok;
      lastVerification = {
        callId: a.callId,
        command: a.command,
        exitCode: a.exitCode,
        passed,
        ...(summary === undefined ? {} : { summary }),
        ...(guessed ? { inferred: true } : {}),
      };
    }
  }
  const asks = entries.flatMap((e) => {
    if (e.type !== 'user') return [];
    const t = personText(e);
    return t === null ? [] : [t];
  });
  const dropped = Math.max(0, commands.length - MAX_LEDGER_COMMANDS);
  const modifiedList = modified.list();
  const renamedTo = new Set(renamed.map((r) => r.to));
  return {
    originalTask: base.originalTask ?? asks[0] ?? null,
    latestRequest: asks[asks.length - 1] ?? base.latestRequest,
    filesRead: read.list(),
    filesModified: modifiedList,
    filesCreated: modifiedList.filter((p) => created.has(p)),
    filesDeleted: deleted.list(),
    renamed,
    inferredFiles: [...inferred].filter((p) => modified.has(p) || read.has(p) || deleted.has(p) || renamedTo.has(p)),
    commands: commands.slice(dropped),
    commandsOmitted: base.commandsOmitted + dropped,
    lastVerification,
    activeSkills: skills,
    plan: ledgerPlan(latestPlan(entries, base.plan)),
    ...modeOf(entries, base.mode),
    ...mcpPart(mcpLedgerOf(entries, { mcpCalls: base.mcpCalls ?? [], mcpToolsLoaded: base.mcpToolsLoaded ?? [] })),
  };
}

/** The mode the latest recorded instruction sources say (Ask's source key is `mode:ask`), else the previous ledger's. */
function modeOf(entries: readonly Entry[], previous: Ledger['mode']): { mode?: 'agent' | 'ask' } {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.type === 'system_update' && e.sources !== undefined) return { mode: e.sources.some((x) => x.key === 'mode:ask') ? 'ask' : 'agent' };
  }
  return previous === undefined ? {} : { mode: previous };
}

/** Only what is there: a ledger without MCP activity keeps the shape it always had. */
function mcpPart(m: ReturnType<typeof mcpLedgerOf>): Pick<Ledger, 'mcpCalls' | 'mcpToolsLoaded'> {
  return { ...(m.mcpCalls.length === 0 ? {} : { mcpCalls: m.mcpCalls }), ...(m.mcpToolsLoaded.length === 0 ? {} : { mcpToolsLoaded: m.mcpToolsLoaded }) };
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
