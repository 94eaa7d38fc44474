// Prompt-cache epochs (docs/behaviour.md#cache-epochs): the frozen system prompt of an epoch, appended instruction updates, and the per-response cache line.
import { groupDigits } from '../compaction/flightRecord.js';
import { systemPromptOf } from '../transcript/modelInput.js';
import { MAX_TOUCHED_PATH, MAX_TOUCHED_PATHS, type Entry, type SystemUpdateEntry, type Usage } from '../transcript/schema.js';
import type { BranchFigures } from '../transcript/branchFigures.js';
import type { CacheMetrics } from './agentEvents.js';
import { isInstructionReason } from '../instructions/update.js';
import type { SourceStamp } from '../instructions/sources.js';

/** The instruction state a new epoch's base carries (docs/user/instructions.md): the rendered text and the sources it stands for. */
export interface EpochInstructions {
  readonly text: string;
  readonly stamps: readonly SourceStamp[];
  /** The paths the agent's calls named on the branch so far (recorded with the stamps). */
  readonly touched?: readonly string[];
}

/** `reason` of the base written when a session starts and when a compaction opens a new epoch. */
const EPOCH_START_REASON = 'session_start';
const EPOCH_COMPACTION_REASON = 'compaction';

/** The `system_update` base that opened the epoch in force on this branch, if any. */
function epochBase(branch: readonly Entry[]): SystemUpdateEntry | undefined {
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    if (e?.type === 'system_update' && e.mode === 'base') return e;
  }
  return undefined;
}

/**
 * The text a new base must carry so the system prompt the model sees does not change: the current base plus
 * every append, exactly as buildModelInput joins them. Folding therefore never breaks the request prefix by itself.
 */
function foldedSystemPrompt(branch: readonly Entry[], defaultSystem: string): string {
  return systemPromptOf(branch, defaultSystem);
}

/**
 * The base of a new epoch after a compaction: the session's first base plus the instruction state now in force.
 * An append with a `reason` (its source, e.g. "Project Memory") carries that source's whole current text, so it
 * supersedes every earlier append of the same source, also those folded into later bases; those are dropped.
 * Appends without a reason are kept in order. Appends written before the first base were folded into it.
 */
export function freshEpochBase(branch: readonly Entry[], defaultSystem: string, instructions?: EpochInstructions): string {
  let root: string | undefined;
  const appends: SystemUpdateEntry[] = [];
  for (const e of branch) {
    if (e.type !== 'system_update') continue;
    // With the current instruction state at hand, its earlier block and updates are replaced by it, whole.
    if (e.mode === 'append' && instructions !== undefined && isInstructionReason(e.reason)) continue;
    if (e.mode === 'append') appends.push(e);
    else if (root === undefined) {
      root = e.content;
      appends.length = 0;
    }
  }
  const lastOfSource = new Map<string, number>();
  appends.forEach((e, i) => {
    if (e.reason !== undefined) lastOfSource.set(e.reason, i);
  });
  const kept = appends.filter((e, i) => e.reason === undefined || lastOfSource.get(e.reason) === i).map((e) => e.content);
  const current = instructions === undefined || instructions.text === '' ? [] : [instructions.text];
  return [root ?? defaultSystem, ...current, ...kept].join('\n\n');
}

/**
 * True when `content` already reaches the model on this branch (as the base or an append), so re-applying the
 * same instruction after a reload appends nothing and the cached prefix stays intact.
 */
function instructionInForce(branch: readonly Entry[], defaultSystem: string, content: string): boolean {
  const text = content.trim();
  return text === '' || systemPromptOf(branch, defaultSystem).includes(text);
}

export function systemUpdateEntry(a: {
  readonly id: string;
  readonly parentId: string | null;
  readonly timestamp: string;
  readonly mode: 'base' | 'append';
  readonly content: string;
  readonly reason?: string;
  readonly sources?: readonly SourceStamp[];
  readonly touched?: readonly string[];
}): SystemUpdateEntry {
  return {
    type: 'system_update',
    id: a.id,
    parentId: a.parentId,
    timestamp: a.timestamp,
    mode: a.mode,
    content: a.content,
    ...(a.reason === undefined ? {} : { reason: a.reason }),
    ...(a.sources === undefined ? {} : { sources: a.sources.map((x) => ({ key: x.key, hash: x.hash })) }),
    ...(a.touched === undefined || !touchedFits(a.touched) ? {} : { touched: [...a.touched] }),
  };
}

/** Whether a touched list fits the entry's bounds (else it is left out, and a reopened chat reads the branch for it). */
function touchedFits(touched: readonly string[]): boolean {
  return touched.length <= MAX_TOUCHED_PATHS && touched.every((p) => p.length <= MAX_TOUCHED_PATH);
}

/** A fall of this many points in the hit rate within one epoch is worth an info line; anything else is debug. */
export const CACHE_DROP_POINTS = 20;

/** Chooses the cache line's log level: debug normally, info when the hit rate drops within the same epoch. */
export class CacheLineLevel {
  #last: { readonly epochId: string | undefined; readonly hitPercent: number } | undefined;

  levelFor(m: CacheMetrics): 'debug' | 'info' {
    const last = this.#last;
    this.#last = { epochId: m.epochId, hitPercent: m.hitPercent };
    return last !== undefined && last.epochId === m.epochId && last.hitPercent - m.hitPercent >= CACHE_DROP_POINTS ? 'info' : 'debug';
  }
}

/**
 * Cache figures of one response. Providers that report cache writes (Anthropic-style) count them inside the
 * prompt tokens, so uncached = prompt - read - written; OpenAI reports no writes and the term is 0.
 */
export function cacheMetricsOf(usage: Usage, epochId?: string): CacheMetrics {
  const promptTokens = usage.promptTokens;
  const cachedTokens = Math.min(promptTokens, usage.cachedTokens ?? 0);
  const cacheWriteTokens = Math.min(promptTokens - cachedTokens, usage.cacheWriteTokens ?? 0);
  const uncachedTokens = Math.max(0, promptTokens - cachedTokens - cacheWriteTokens);
  const hitPercent = promptTokens > 0 ? Math.round((cachedTokens / promptTokens) * 100) : 0;
  const line =
    `Prompt cache: ${groupDigits(cachedTokens)} / ${groupDigits(promptTokens)} prompt tokens cached (${hitPercent}%)` +
    ` · cache write ${groupDigits(cacheWriteTokens)} · uncached ${groupDigits(uncachedTokens)}`;
  return { promptTokens, cachedTokens, cacheWriteTokens, uncachedTokens, hitPercent, ...(epochId === undefined ? {} : { epochId }), line };
}

/** Appends the epoch entries of one session; the caller serializes calls with its other appends. */
export class EpochKeeper {
  constructor(
    private readonly deps: {
      readonly append: (e: SystemUpdateEntry) => Promise<void>;
      readonly entryBase: () => { readonly id: string; readonly parentId: string | null; readonly timestamp: string };
      readonly branch: () => readonly Entry[];
      /** The branch's reachable tail (it holds the latest base); asked on every response, so cheaper than branch(). */
      readonly tail?: () => readonly Entry[];
      /** The branch's running figures (the epoch base in force without a walk). */
      readonly figures?: () => BranchFigures;
      /** The branch's system updates, root first, without reading its other entries (a compact history's are kept whole). */
      readonly systemUpdates?: () => Iterable<Entry>;
      readonly systemPrompt: string;
      /** The instruction state for a new epoch's base, when the session reads instruction sources. */
      readonly instructions?: () => EpochInstructions | undefined;
    },
  ) {}

  /** Id of the base entry of the epoch in force. */
  epochId(): string | undefined {
    const figures = this.deps.figures?.();
    if (figures !== undefined) return figures.epochBase?.id;
    return epochBase(this.deps.tail?.() ?? this.deps.branch())?.id;
  }

  /** Freezes the system prompt at session start (or on the first turn of a session that never had a base). */
  async ensureStarted(): Promise<boolean> {
    if (this.deps.figures?.().epochBase !== undefined) return false;
    const branch = this.deps.branch();
    if (epochBase(branch) !== undefined) return false;
    await this.writeBase(foldedSystemPrompt(branch, this.deps.systemPrompt), EPOCH_START_REASON);
    return true;
  }

  /** After a successful compaction: a new epoch whose base is the instruction state in force, superseded updates dropped. */
  async startAfterCompaction(checkpointId?: string): Promise<void> {
    const instructions = this.deps.instructions?.();
    // Only the system updates matter to the new base: a compact history's other lines stay in the file.
    const updates = this.deps.systemUpdates?.();
    const content = freshEpochBase(updates === undefined ? this.deps.branch() : [...updates], this.deps.systemPrompt, instructions);
    await this.writeBase(
      content,
      checkpointId === undefined ? EPOCH_COMPACTION_REASON : `${EPOCH_COMPACTION_REASON} ${checkpointId}`,
      instructions?.stamps,
      instructions?.touched,
    );
  }

  /** One instruction update (or the session's first block) recording the sources now in force; written even when its text appeared before. */
  async appendInstructions(content: string, reason: string, sources: readonly SourceStamp[], touched?: readonly string[]): Promise<void> {
    await this.deps.append(
      systemUpdateEntry({ ...this.deps.entryBase(), mode: 'append', content, reason, sources, ...(touched === undefined ? {} : { touched }) }),
    );
  }

  /** One chronological instruction update; false (nothing written) when that text already reaches the model. */
  async appendUpdate(content: string, reason?: string): Promise<boolean> {
    if (instructionInForce(this.deps.branch(), this.deps.systemPrompt, content)) return false;
    await this.deps.append(
      systemUpdateEntry({ ...this.deps.entryBase(), mode: 'append', content: content.trim(), ...(reason === undefined ? {} : { reason }) }),
    );
    return true;
  }

  private async writeBase(content: string, reason: string, sources?: readonly SourceStamp[], touched?: readonly string[]): Promise<void> {
    await this.deps.append(
      systemUpdateEntry({
        ...this.deps.entryBase(),
        mode: 'base',
        content,
        reason,
        ...(sources === undefined ? {} : { sources }),
        ...(sources === undefined || touched === undefined ? {} : { touched }),
      }),
    );
  }
}
