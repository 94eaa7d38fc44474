// Host state → the plain protocol shapes the webview draws (one place, so the webview never sees engine types).
import type { Budget } from '../../engine/tokens/budget.js';
import type { ChatReads } from '../../node/chatReads.js';
import type { BudgetView, SessionView, SettingsView } from '../../protocol/messages.js';
import type { HostSettings } from '../services/settings.js';

export function toBudgetView(b: Budget): BudgetView {
  return {
    model: b.model,
    contextWindow: b.contextWindow,
    maxOutputTokens: b.maxOutputTokens,
    effectiveTokens: b.effectiveTokens,
    source: b.source,
    softLimit: b.softLimit,
    hardLimit: b.hardLimit,
    safetyReserveTokens: b.safetyReserveTokens,
    keepRecentTokens: b.keepRecentTokens,
    capsules: b.capsules,
    messages: b.messages,
    turns: b.turns,
    lastCapsule: b.lastCapsule
      ? { ageMs: b.lastCapsule.ageMs, tokens: b.lastCapsule.tokens, checkpointId: b.lastCapsule.checkpointId, quality: b.lastCapsule.quality }
      : undefined,
    savingsRatio: b.savingsRatio,
    reclaimableTokens: b.reclaimableTokens,
    autoCompact: b.autoCompact,
    nextTrigger: b.nextTrigger,
    categories: {
      system: b.categories.system,
      tools: b.categories.tools,
      capsule: b.categories.capsule,
      messages: b.categories.messages,
      toolResults: b.categories.toolResults,
      reservedOutput: b.categories.reservedOutput,
    },
    percentOfHard: b.percentOfHard,
    ...(b.windowSource === undefined ? {} : { windowSource: b.windowSource }),
    ...(b.mode === undefined ? {} : { mode: b.mode }),
    ...(b.instructions === undefined ? {} : { instructions: b.instructions.slice(0, 200).map((f) => ({ label: f.label.slice(0, 1000), tokens: f.tokens })) }),
  };
}

export function toSessionView(store: ChatReads): SessionView {
  return {
    id: store.header.id,
    title: store.header.title,
    createdAt: store.header.createdAt,
    // The tree's size, not entries().length: a compact history would be read back from the file to be counted.
    entries: store.tree.size,
    readOnly: store.readOnly,
    readOnlyReason: store.readOnlyReason,
    problems: store.problems.length,
  };
}

export function toSettingsView(s: HostSettings): SettingsView {
  return {
    modelId: s.modelId,
    provider: s.provider,
    autoCompact: s.resolved.settings.auto,
    softTriggersEnabled: s.resolved.softTriggersEnabled,
    warning: s.resolved.warning,
  };
}
