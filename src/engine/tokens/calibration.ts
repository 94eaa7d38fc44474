// Provider calibration of docs/behaviour.md#tokens: project the provider's reported prompt tokens onto the current input.
import type { ModelInput } from '../transcript/modelInput.js';
import type { AssistantEntry, Entry } from '../transcript/schema.js';
import type { EntryTokenCache } from './entryCache.js';
import type { ToolSchema } from '../ports.js';
import { serializeToolSchemas, withMargin, type RequestEstimate } from './estimate.js';
import { cyrb53 } from './hash.js';

/**
 * Identifies the request prefix (provider, model, system prompt, tool schemas). Parts are length-prefixed so
 * moving text between them changes the hash; two seeds give ~106 bits, plenty against accidental collisions.
 */
export function prefixFingerprint(p: { provider: string; model: string; system: string; toolsJson: string }): string {
  const text = [p.provider, p.model, p.system, p.toolsJson].map((s) => `${s.length}:${s}`).join('|');
  return `fp_${cyrb53(text, 1).toString(16).padStart(14, '0')}${cyrb53(text, 2).toString(16).padStart(14, '0')}`;
}

/** The fingerprint of a request as the agent sends it; store it on the assistant entry with the reported usage. */
export function requestFingerprint(provider: string, model: string, system: string, tools: readonly ToolSchema[]): string {
  return prefixFingerprint({ provider, model, system, toolsJson: serializeToolSchemas(tools) });
}

export interface Effective {
  readonly tokens: number;
  readonly source: 'provider_usage' | 'estimated';
  /** The local estimate (with margin). */
  readonly estimate: number;
  /** reported prompt tokens + estimate of what was added since, when a valid report exists. */
  readonly projected?: number;
}

/** The newest assistant reply whose request had the current prefix and whose input no compaction has replaced since. */
function calibrationAnchor(branch: readonly Entry[], fingerprint: string): AssistantEntry | undefined {
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    if (e === undefined) continue;
    // A capsule after the report means the reported request no longer resembles the current input.
    if (e.type === 'capsule') return undefined;
    if (e.type === 'assistant' && e.usage !== undefined && e.prefixFingerprint === fingerprint) return e;
  }
  return undefined;
}

/**
 * effective = max(local estimate, reported + estimate(suffix)), where the suffix is the reply that carried the
 * report and everything after it in the current input. The provider saw exactly the rest.
 */
export function effectiveTokens(args: {
  branch: readonly Entry[];
  input: ModelInput;
  estimate: RequestEstimate;
  currentFingerprint: string;
  cache: EntryTokenCache;
}): Effective {
  const local = args.estimate.total;
  const anchor = calibrationAnchor(args.branch, args.currentFingerprint);
  const reported = anchor?.usage?.promptTokens;
  if (anchor === undefined || reported === undefined) return { tokens: local, source: 'estimated', estimate: local };
  let at = -1;
  // The anchor is usually a few messages from the end, so search backwards.
  for (let i = args.input.messages.length - 1; i >= 0 && at < 0; i--) if (args.input.messages[i]?.entryId === anchor.id) at = i;
  if (at < 0) return { tokens: local, source: 'estimated', estimate: local };
  let suffix = 0;
  for (let i = at; i < args.input.messages.length; i++) {
    const m = args.input.messages[i];
    if (m !== undefined) suffix += args.cache.tokensOfMessage(m);
  }
  const projected = reported + withMargin(suffix);
  return projected >= local
    ? { tokens: projected, source: 'provider_usage', estimate: local, projected }
    : { tokens: local, source: 'estimated', estimate: local, projected };
}
