// The budget of a session's next request, and the token caches it is counted with: one source for every meter and report.
import { computeBudget, computeBudgetOf, RECENT_TURNS, type Budget } from '../engine/tokens/budget.js';
import type { BranchFigures } from '../engine/transcript/branchFigures.js';
import { reachableTail, recentTurnsFrom, type EntryLookup } from '../engine/transcript/tail.js';
import { EntryTokenCache } from '../engine/tokens/entryCache.js';
import { estimateRequest, type TokenCategories } from '../engine/tokens/estimate.js';
import type { ModelInfo } from '../engine/tokens/modelLimits.js';
import { counterForModel, encodingForModel, encodingReady, warmEncoding, type EncodingName } from './tokenCounter.js';
import { UntilReadyCounter } from '../engine/tokens/untilReady.js';
import { tokenizerId } from '../engine/tokens/persistedCounts.js';
import type { CountsFile } from './countsFile.js';
import { buildModelInput } from '../engine/transcript/modelInput.js';
import type { Entry } from '../engine/transcript/schema.js';
import type { ResolvedSettings } from '../engine/config.js';
import type { ToolSchema } from '../engine/ports.js';

/** What a request is measured against: its model, the tools it carries, the settings and the counts' cache. */
export interface BudgetBasis {
  readonly model: ModelInfo;
  readonly provider: string;
  readonly tools: readonly ToolSchema[];
  readonly resolved: ResolvedSettings;
  readonly cache: EntryTokenCache;
  /** The system prompt used when the branch has no frozen epoch yet. */
  readonly system: string;
}

/** How a session's caches count: with its persisted counts, and (a chat) without waiting for the tokenizer's table. */
export interface CachesOptions {
  /** The session's counts sidecar (docs/behaviour.md#counted-once): read before tokenizing, given every new count. */
  readonly counts?: CountsFile;
  /**
   * Give upper bounds until the table is built, and build it once the current work is done (docs/behaviour.md#cold-start).
   * The preflight settles to exact counts before any decision an upper bound could get wrong.
   */
  readonly provisional?: boolean;
}

/**
 * Test seam: `holdTable` keeps the table "not built yet" for provisional caches (the state of a chat's first seconds),
 * however many tests built it before, so a test can drive turns on upper bounds alone.
 */
export const coldStartHooks: { holdTable?: boolean } = {};

const warming = new Set<EncodingName>();

/**
 * Builds the table shortly after the first count that needed it: the request that count was for is on its way by
 * then (the table takes about a second to build and blocks while it does), and the next counts are exact.
 */
function warmSoon(name: EncodingName): void {
  if (warming.has(name) || coldStartHooks.holdTable === true) return;
  warming.add(name);
  setTimeout(() => warmEncoding(name), WARM_DELAY_MS).unref();
}
const WARM_DELAY_MS = 250;

function provisionalCounter(model: string): UntilReadyCounter {
  const name = encodingForModel(model);
  return new UntilReadyCounter(
    counterForModel(model),
    () => coldStartHooks.holdTable !== true && encodingReady(name),
    () => warmSoon(name),
  );
}

/**
 * Counts are cached by entry id, which is only valid for one tokenizer: each model gets its own cache. The last two
 * are kept, so a refused model switch returns to the counts it already had.
 */
export class TokenCaches {
  readonly #byModel = new Map<string, EntryTokenCache>();

  constructor(private readonly opts: CachesOptions = {}) {}

  forModel(model: string): EntryTokenCache {
    const hit = this.#byModel.get(model);
    if (hit) {
      this.#byModel.delete(model);
      this.#byModel.set(model, hit);
      return hit;
    }
    const counter = this.opts.provisional === true ? provisionalCounter(model) : counterForModel(model);
    const cache = new EntryTokenCache(counter, this.opts.counts?.forTokenizer(tokenizerId(counter.encoding)));
    this.#byModel.set(model, cache);
    for (const old of this.#byModel.keys()) if (this.#byModel.size > 2) this.#byModel.delete(old);
    return cache;
  }
}

export function budgetOf(branch: readonly Entry[], basis: BudgetBasis, now: number): Budget {
  return computeBudget({
    branch,
    defaultSystem: basis.system,
    tools: basis.tools,
    model: basis.model,
    provider: basis.provider,
    resolved: basis.resolved,
    now,
    cache: basis.cache,
  });
}

/** A store's active branch as the budget reads it: entries by id, its leaf, its running figures. */
export interface BranchSource extends EntryLookup {
  leafId(): string | null;
  figures(): BranchFigures;
}

/** The budget of a store's active branch, read from its leaf: the same figures as budgetOf(branch), no walk from the root. */
export function budgetOfLeaf(store: BranchSource, basis: BudgetBasis, now: number): Budget {
  const leaf = store.leafId();
  const view = { tail: reachableTail(store, leaf), recent: recentTurnsFrom(store, leaf, RECENT_TURNS), figures: store.figures() };
  return computeBudgetOf({
    view,
    defaultSystem: basis.system,
    tools: basis.tools,
    model: basis.model,
    provider: basis.provider,
    resolved: basis.resolved,
    now,
    cache: basis.cache,
  });
}

/**
 * When some counts of the next request were upper bounds (the table was not built yet, so they were not kept), counts
 * it once exactly so every count reaches the sidecar; a short CLI chat does this after its output. False when there
 * was nothing to complete or it failed (counts are a cache: the next open counts them).
 */
export function completeCounts(store: BranchSource, basis: () => BudgetBasis, now: number): boolean {
  try {
    const b = basis();
    if (b.cache.provisional === 0) return false;
    b.cache.settle();
    budgetOfLeaf(store, b, now);
    return true;
  } catch {
    return false;
  }
}

export function categoriesOf(branch: readonly Entry[], basis: BudgetBasis): TokenCategories {
  const input = buildModelInput(branch, basis.system);
  return estimateRequest(input, basis.tools, basis.cache, basis.model.maxOutputTokens).categories;
}
