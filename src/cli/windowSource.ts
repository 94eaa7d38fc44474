// Where the context window `capsule budget` uses comes from, in words: --window, the session's record (learned, provider, table), the model table or the default.
import { formatTokens } from '../engine/tokens/figures.js';
import type { ModelInfo } from '../engine/tokens/modelLimits.js';
import type { Entry } from '../engine/transcript/schema.js';
import { cliLimitsPath, LearnedLimitsFile, learnedOn, type LearnedLimit } from '../node/learnedLimits.js';
import type { Flags } from './args.js';
import { sessionModel } from './session.js';

export interface WindowSource {
  /** flag: --window now; the others as recorded by the session (or, without a record, from the model table). */
  readonly kind: 'flag' | ModelInfo['source'];
  readonly text: string;
  /** For a learned window: the endpoint and date of the overflow error, when the learned-limits file still has them. */
  readonly learned?: LearnedLimit;
}

const RECORDED: Readonly<Record<Exclude<ModelInfo['source'], 'learned'>, string>> = {
  override: 'set with --window (or the model setting) when the session last chose this model',
  provider: 'reported by the provider',
  table: "Capsule's built-in model table",
  default: 'unknown: Capsule assumes it until --window, the provider or an overflow error says otherwise',
};

/** The learned entry for this model, preferring one that states exactly this window, then the newest. */
async function learnedFor(model: string, window: number | undefined): Promise<LearnedLimit | undefined> {
  const { limits } = await new LearnedLimitsFile(cliLimitsPath()).list();
  const same = limits.filter((e) => e.model === model).sort((a, b) => (b.learnedAt ?? '').localeCompare(a.learnedAt ?? ''));
  return same.find((e) => e.contextWindow === window) ?? same[0];
}

function learnedText(e: LearnedLimit): string {
  return `the ${formatTokens(e.contextWindow)} learned from ${e.endpoint}'s overflow error${learnedOn(e)}`;
}

export async function windowSourceOf(flags: Flags, branch: readonly Entry[], model: ModelInfo): Promise<WindowSource> {
  const recorded = sessionModel(branch);
  const same = recorded !== undefined && recorded.model === model.model && recorded.contextWindow !== undefined;
  if (typeof flags.window === 'string') {
    const learned = await learnedFor(model.model, same && recorded.windowSource === 'learned' ? recorded.contextWindow : undefined);
    return {
      kind: 'flag',
      text: `--window${learned === undefined ? '' : `, which wins over ${learnedText(learned)}`}`,
      ...(learned === undefined ? {} : { learned }),
    };
  }
  const kind: ModelInfo['source'] = same ? (recorded.windowSource ?? 'provider') : model.source;
  if (kind !== 'learned') return { kind, text: same ? `${RECORDED[kind]} (recorded in the session)` : RECORDED[kind] };
  const learned = await learnedFor(model.model, recorded?.contextWindow);
  if (learned === undefined) return { kind, text: 'learned from an overflow error (recorded in the session; the learned-limits file no longer has it)' };
  return {
    kind,
    text: `learned from ${learned.endpoint}'s overflow error${learnedOn(learned)}; 'capsule limits forget ${learned.endpoint} ${learned.model}' drops it`,
    learned,
  };
}
