// The model switch of docs/behaviour.md#triggers: the mandatory protective handoff, made by the previous (larger) model before the new one sees anything.
import type { BarrierModelInfo, PreflightBarrier, PreflightResult } from '../compaction/barrier.js';
import type { TriggerState } from '../compaction/triggers.js';
import type { ResolvedSettings } from '../config.js';
import type { ChatModel } from '../ports.js';
import type { EntryTokenCache } from '../tokens/entryCache.js';
import { limitsOf, type Limits } from '../tokens/tokenLimits.js';
import type { ModelInfo } from '../tokens/modelLimits.js';
import type { ModelChangeEntry } from '../transcript/schema.js';

/** A model the agent can talk to, with the limits its budget is computed from. */
export interface AgentModel {
  readonly chat: ChatModel;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** Where the window came from; `default` means assumed (nobody reported it), and every surface says so. */
  readonly windowSource?: ModelInfo['source'];
}

export interface SwitchTarget extends AgentModel {
  /** Settings validated against the new model; the current ones are kept when omitted. */
  readonly resolved?: ResolvedSettings;
  /** Token counts for the new model's tokenizer; without it the barrier keeps counting with the old one. */
  readonly cache?: EntryTokenCache;
}

export type SwitchResult =
  | { readonly ok: true; readonly handoff: boolean; readonly lines: readonly string[]; readonly tokens: number; readonly hardLimit: number }
  | {
      readonly ok: false;
      readonly handoff: boolean;
      readonly error: string;
      readonly lines: readonly string[];
      readonly tokens: number;
      readonly hardLimit: number;
    };

export interface HandoffContext {
  readonly barrier: PreflightBarrier;
  readonly triggers: TriggerState;
  /** The model in use now: it makes the handoff summary. */
  readonly current: BarrierModelInfo;
  readonly resolved: ResolvedSettings;
  readonly signal: AbortSignal;
}

export interface HandoffResult {
  readonly result: SwitchResult;
  /** A capsule was appended (the caller opens a new cache epoch). */
  readonly compacted: boolean;
}

function limitsFor(model: Pick<AgentModel, 'contextWindow' | 'maxOutputTokens'>, resolved: ResolvedSettings): Limits {
  return limitsOf(model, resolved.settings);
}

function completed(r: PreflightResult): boolean {
  return r.outcomes.some((o) => o.outcome === 'completed');
}

/**
 * Decides and runs the compaction a switch needs; changes nothing about which model is in use.
 * - New hard limit ≥ current effective tokens: nothing mandatory; with compactOnModelSwitch an intent is recorded.
 * - Otherwise the handoff: first a `model_switch` compaction by the current model within its own (larger) limits,
 *   which keeps the summary request cheap and complete; if the context still exceeds the new model's hard limit,
 *   the current model compacts again, escalating, measured against the new limit. Any failure refuses the switch,
 *   so nothing oversized ever reaches the new model.
 */
export async function protectiveHandoff(ctx: HandoffContext, target: SwitchTarget): Promise<HandoffResult> {
  const { barrier } = ctx;
  const targetResolved = target.resolved ?? ctx.resolved;
  const targetLimits = limitsFor(target, targetResolved);
  const hardLimit = targetLimits.hardLimit;
  const lines: string[] = [];
  let compacted = false;
  const fail = (error: string, tokens: number): HandoffResult => ({
    result: {
      ok: false,
      handoff: true,
      error: `Switching to ${target.chat.model} was refused: ${error} Nothing was sent to ${target.chat.model}.`,
      lines,
      tokens,
      hardLimit,
    },
    compacted,
  });

  const before = barrier.measure(hardLimit);
  if (before.tokens <= hardLimit) {
    if (targetResolved.settings.compactOnModelSwitch) ctx.triggers.recordIntent('model_switch', target.chat.model);
    return { result: { ok: true, handoff: false, lines, tokens: before.tokens, hardLimit }, compacted };
  }

  const first = await barrier.preflight({ signal: ctx.signal, mandatoryModelSwitch: true });
  lines.push(...first.lines);
  compacted = completed(first);
  const broken = first.outcomes.find((o) => o.outcome === 'failed' || o.outcome === 'cancelled' || o.outcome === 'stale');
  // Under the old limit a failed compaction still lets a request proceed; a handoff must not: it exists to shrink.
  if (!first.mayProceed || broken !== undefined) {
    const why = first.error ?? (broken !== undefined && 'reason' in broken ? `${broken.outcome}: ${broken.reason}` : 'no reason given');
    return fail(`the handoff compaction by ${ctx.current.model} did not complete (${why}).`, first.tokens);
  }

  let tokens = barrier.measure().tokens;
  // Aim at the new model's soft limit, not just its hard one: otherwise its first request compacts again at once.
  if (tokens > targetLimits.softLimit) {
    // Still the previous model summarizing; only the limits are the new model's, so the escalation aims at them.
    barrier.update({ modelInfo: { ...ctx.current, contextWindow: target.contextWindow, maxOutputTokens: target.maxOutputTokens }, resolved: targetResolved });
    let second: PreflightResult;
    try {
      second = await barrier.compactWith('hard_limit', { signal: ctx.signal });
    } finally {
      barrier.update({ modelInfo: ctx.current, resolved: ctx.resolved });
    }
    lines.push(...second.lines);
    compacted = compacted || completed(second);
    if (!second.mayProceed)
      return fail(`the handoff compaction by ${ctx.current.model} did not fit the new model (${second.error ?? 'no reason given'}).`, second.tokens);
    tokens = barrier.measure().tokens;
  }
  if (tokens > hardLimit) {
    return fail(`after the handoff compaction the context is still ${tokens} tokens, above ${target.chat.model}'s hard limit of ${hardLimit}.`, tokens);
  }
  return { result: { ok: true, handoff: true, lines, tokens, hardLimit }, compacted };
}

/** Where the model's window came from, as the optional field entries and events carry. */
export function windowSourceOf(m: AgentModel): { readonly windowSource?: NonNullable<AgentModel['windowSource']> } {
  return m.windowSource === undefined ? {} : { windowSource: m.windowSource };
}

/** The `model_change` entry that records `m` as the model in force from here on. */
export function modelChangeEntry(base: { id: string; parentId: string | null; timestamp: string }, m: AgentModel): ModelChangeEntry {
  const chat = m.chat;
  return {
    ...base,
    type: 'model_change',
    provider: chat.provider,
    model: chat.model,
    contextWindow: m.contextWindow,
    maxOutputTokens: m.maxOutputTokens,
    ...windowSourceOf(m),
  };
}

/** Whether the branch's recorded model is `m` (same provider, model and limits): else a new `model_change` is due. */
export function sameRecordedModel(
  recorded: Pick<ModelChangeEntry, 'provider' | 'model' | 'contextWindow' | 'maxOutputTokens'> | undefined,
  m: AgentModel,
): boolean {
  return (
    recorded !== undefined &&
    recorded.provider === m.chat.provider &&
    recorded.model === m.chat.model &&
    recorded.contextWindow === m.contextWindow &&
    recorded.maxOutputTokens === m.maxOutputTokens
  );
}
