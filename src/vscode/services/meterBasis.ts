// The context meter's basis: the running agent's (its model, tools, settings and token cache), else the settings' model with no tools.
import { DEFAULT_SYSTEM_PROMPT } from '../../engine/agent/systemPrompt.js';
import type { ChatFacade } from '../../node/chatFacade.js';
import { TokenCaches, type BudgetBasis } from '../../node/sessionBudget.js';
import type { HostSettings } from './settings.js';

export type MeterBasis = BudgetBasis;

/** Without an agent there is no facade to own the counts: the meter keeps them for the settings' model only then. */
export class Meter {
  readonly #caches = new TokenCaches();

  basisOf(agent: ChatFacade | undefined, s: HostSettings): MeterBasis {
    if (agent) return agent.basis();
    return {
      model: s.model,
      provider: s.provider,
      tools: [],
      resolved: s.resolved,
      cache: this.#caches.forModel(s.model.model),
      system: DEFAULT_SYSTEM_PROMPT,
    };
  }
}

/** Tokens of a capsule as the model reads it (for the capsule viewer). */
export function capsuleTokens(summary: string, basis: MeterBasis): number {
  return basis.cache.counter.count(summary);
}
