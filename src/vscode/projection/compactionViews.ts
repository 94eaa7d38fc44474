// Compaction cards (before/after by the meter's categories) and the capsule viewer's content, from capsule entries.
import { LIMITS } from '../../protocol/limits.js';
import { SECTION_NAMES, headingOf, parseCapsuleSections } from '../../engine/compaction/capsuleFormat.js';
import { IMPORTED_DETAILS_KEY } from '../../engine/portable/imported.js';
import type { TokenCategories } from '../../engine/tokens/estimate.js';
import { latestCapsule } from '../../engine/transcript/modelInput.js';
import type { CapsuleEntry, Entry } from '../../engine/transcript/schema.js';
import { reachableTail } from '../../engine/transcript/tail.js';
import type { SessionTree } from '../../engine/transcript/tree.js';
import type { BudgetCategories, CapsuleView, CompactionCard } from '../../protocol/messages.js';
import { categoriesOf } from '../../node/sessionBudget.js';
import { capsuleTokens, type MeterBasis } from '../services/meterBasis.js';
import { RETENTION_CATEGORIES, retentionFromDetails, retentionLine } from '../../engine/compaction/retention.js';

/** Capsules are kept whole in a compact history: finding one reads nothing back from the file. */
const CAPSULES: ReadonlySet<string> = new Set(['capsule']);

function categoriesView(c: TokenCategories): BudgetCategories {
  return { system: c.system, tools: c.tools, capsule: c.capsule, messages: c.messages, toolResults: c.toolResults, reservedOutput: c.reservedOutput };
}

function detail(capsule: CapsuleEntry, key: string): string | undefined {
  const v = capsule.details[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function level(n: number): number {
  return Math.min(3, Math.max(0, Math.round(n)));
}

/** The card's retention figures, from the report stored in the capsule (absent on capsules made before it existed). */
/** The card's retention report, from what the compaction stored in the capsule. */
export function retentionView(capsule: CapsuleEntry | undefined): Pick<CompactionCard, 'retention'> {
  const r = capsule === undefined ? undefined : retentionFromDetails(capsule.details);
  if (r === undefined) return {};
  const dropped = RETENTION_CATEGORIES.flatMap((category) => r[category].dropped.map((item) => ({ category, item: item.slice(0, 500) }))).slice(0, 200);
  return { retention: { line: retentionLine(r).slice(0, 300), dropped, appended: r.appended } };
}

/** The card of a capsule already in the session: before = the input at its checkpoint, after = the input right after it. */
export function historyCard(capsule: CapsuleEntry, tree: SessionTree, basis: MeterBasis, durationMs: number | undefined): CompactionCard {
  const fallbackReason = detail(capsule, 'fallbackReason');
  const operationId = detail(capsule, 'operationId');
  return {
    checkpointId: capsule.checkpointId,
    trigger: capsule.trigger,
    ...(operationId === undefined ? {} : { operationId: operationId.slice(0, LIMITS.id) }),
    tokensBefore: capsule.tokensBefore,
    tokensAfter: capsule.tokensAfter,
    // The reachable tail gives the same model input as the whole branch (property-tested) at the cost of the tail:
    // a chat with hundreds of compactions would otherwise walk its whole branch once per card.
    before: categoriesView(categoriesOf(reachableTail(tree, capsule.parentId), basis)),
    after: categoriesView(categoriesOf(reachableTail(tree, capsule.id), basis)),
    durationMs: Math.max(0, durationMs ?? 0),
    quality: capsule.quality,
    ...(capsule.quality === 'degraded' && fallbackReason !== undefined ? { fallbackReason: fallbackReason.slice(0, LIMITS.line) } : {}),
    level: level(capsule.level),
    ...(capsule.details[IMPORTED_DETAILS_KEY] === undefined ? {} : { loaded: true }),
    ...retentionView(capsule),
  };
}

/** The newest capsule entry made at this checkpoint, on any branch. */
function capsuleAt(entries: readonly Entry[], checkpointId: string): CapsuleEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.type === 'capsule' && e.checkpointId === checkpointId) return e;
  }
  return undefined;
}

/** Everything from the Ledger heading on: code builds it from the transcript, so it is shown apart from the model's sections. */
function ledgerOf(summary: string): string {
  const lines = summary.replace(/\r\n?/g, '\n').split('\n');
  const at = lines.findIndex((l) => headingOf(l) === 'Ledger');
  return at < 0 ? '' : lines.slice(at).join('\n').trim();
}

function importedTitle(capsule: CapsuleEntry): string | undefined {
  const imported = capsule.details[IMPORTED_DETAILS_KEY];
  if (typeof imported !== 'object' || imported === null || !('title' in imported)) return undefined;
  const title: unknown = imported.title;
  return typeof title === 'string' ? title : undefined;
}

/** The capsule viewer's content; `previous` is the capsule before it on its own branch (for the diff). */
export function capsuleView(tree: SessionTree, checkpointId: string, basis: MeterBasis): CapsuleView | undefined {
  const capsule = capsuleAt(tree.ofKinds(CAPSULES), checkpointId);
  if (!capsule) return undefined;
  const parsed = parseCapsuleSections(capsule.summary);
  const sections = SECTION_NAMES.flatMap((name) => {
    const body = parsed.sections[name];
    return body === undefined || body === '' ? [] : [{ name, body: body.slice(0, LIMITS.delta) }];
  });
  const prev = latestCapsule(tree.branch(capsule.parentId))?.capsule;
  const title = importedTitle(capsule) ?? detail(capsule, 'focus');
  const degraded = detail(capsule, 'fallbackReason');
  return {
    checkpointId: capsule.checkpointId,
    ...(title === undefined ? {} : { title: title.slice(0, LIMITS.label) }),
    trigger: capsule.trigger,
    quality: capsule.quality,
    ...(capsule.quality === 'degraded' && degraded !== undefined ? { degradedReason: degraded.slice(0, LIMITS.line) } : {}),
    tokens: capsuleTokens(capsule.summary, basis),
    createdAt: capsule.timestamp,
    sections,
    ledger: ledgerOf(capsule.summary).slice(0, LIMITS.capsule),
    text: capsule.summary.slice(0, LIMITS.input),
    previous: prev && /^ck_[A-Za-z0-9_-]+$/.test(prev.checkpointId) ? { checkpointId: prev.checkpointId, text: prev.summary.slice(0, LIMITS.input) } : null,
  };
}
