// The context meter's figures: the /budget of the open chat as the agent would send it (its model, tools and settings).
import { DEFAULT_SYSTEM_PROMPT } from '../engine/agent/systemPrompt.js';
import type { ResolvedSettings } from '../engine/config.js';
import type { ToolSchema } from '../engine/ports.js';
import { computeBudget, type Budget } from '../engine/tokens/budget.js';
import { EntryTokenCache } from '../engine/tokens/entryCache.js';
import { estimateRequest, type TokenCategories } from '../engine/tokens/estimate.js';
import type { ModelInfo } from '../engine/tokens/modelLimits.js';
import { counterForModel } from '../node/tokenCounter.js';
import { buildModelInput } from '../engine/transcript/modelInput.js';
import type { Entry } from '../engine/transcript/schema.js';
import type { AgentSession } from '../node/agentSession.js';
import type { HostSettings } from './settings.js';

/** What the request is measured against: the agent's model and tools when it runs, the settings' model otherwise. */
export interface MeterBasis {
  readonly model: ModelInfo;
  readonly provider: string;
  readonly tools: readonly ToolSchema[];
  readonly resolved: ResolvedSettings;
}

/** The running agent's model, tools and settings; without an agent, the settings' model and no tools. */
export function basisOf(agent: AgentSession | undefined, s: HostSettings): MeterBasis {
  if (!agent) return { model: s.model, provider: s.provider, tools: [], resolved: s.resolved };
  const m = agent.agent.currentModel;
  return {
    model: { model: m.chat.model, contextWindow: m.contextWindow, maxOutputTokens: m.maxOutputTokens, source: 'provider' },
    provider: m.chat.provider,
    tools: agent.tools.schemas(),
    resolved: agent.agent.settings,
  };
}

export class Meter {
  #cache: { readonly model: string; readonly cache: EntryTokenCache } | undefined;

  /** Counts are cached by entry id, which is only valid for one tokenizer: a new model gets a new cache. */
  #cacheFor(model: string): EntryTokenCache {
    if (this.#cache?.model !== model) this.#cache = { model, cache: new EntryTokenCache(counterForModel(model)) };
    return this.#cache.cache;
  }

  budget(branch: readonly Entry[], basis: MeterBasis, now = Date.now()): Budget {
    return computeBudget({
      branch,
      defaultSystem: DEFAULT_SYSTEM_PROMPT,
      tools: basis.tools,
      model: basis.model,
      provider: basis.provider,
      resolved: basis.resolved,
      now,
      cache: this.#cacheFor(basis.model.model),
    });
  }

  /** The meter's categories for the model input of a branch (a compaction card's before or after). */
  categories(branch: readonly Entry[], basis: MeterBasis): TokenCategories {
    const input = buildModelInput(branch, DEFAULT_SYSTEM_PROMPT);
    return estimateRequest(input, basis.tools, this.#cacheFor(basis.model.model), basis.model.maxOutputTokens).categories;
  }

  /** Tokens of a capsule as the model reads it (for the capsule viewer). */
  capsuleTokens(summary: string, model: string): number {
    return this.#cacheFor(model).counter.count(summary);
  }
}
