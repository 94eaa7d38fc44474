// Validates every message from the host before the webview touches it, mirroring src/protocol's schemas field by field.
import type {
  BarrierOutcome,
  CheckpointKindView,
  HostMessageType,
  MeasurementSource,
  Quality,
  ToolStatus,
  TranscriptItemKind,
  TriggerView,
  HostToWebview,
} from '../src/protocol/messages.js';
import { type Check, arrayOf, bool, isRec, nonNeg, nullable, num, oneOf, optional, shape, str, union } from './guards.js';

const TRIGGERS: Readonly<Record<TriggerView, true>> = {
  hard_limit: true,
  context_overflow: true,
  milestone: true,
  plan_pivot: true,
  turn_complete: true,
  auto_threshold: true,
  user: true,
  idle: true,
  model_switch: true,
};
const trigger = oneOf(TRIGGERS);
const quality = oneOf<Quality>({ full: true, degraded: true });
const id = str(200, 1);
const checkpointId: Check = (v) => typeof v === 'string' && v.length <= 200 && /^ck_[A-Za-z0-9_-]+$/.test(v);

const categories = shape({ system: num, tools: num, capsule: num, messages: num, toolResults: num, reservedOutput: num });
const budget = shape({
  model: str(200),
  contextWindow: num,
  maxOutputTokens: num,
  effectiveTokens: num,
  source: oneOf<MeasurementSource>({ provider_usage: true, estimated: true }),
  softLimit: num,
  hardLimit: num,
  safetyReserveTokens: num,
  keepRecentTokens: num,
  capsules: num,
  messages: num,
  turns: num,
  lastCapsule: optional(shape({ ageMs: num, tokens: num, checkpointId: str(200), quality })),
  savingsRatio: num,
  reclaimableTokens: num,
  autoCompact: bool,
  nextTrigger: str(500),
  categories,
  percentOfHard: num,
});
const session = shape({ id: str(200), title: optional(str(500)), createdAt: str(64), entries: num, readOnly: bool, readOnlyReason: optional(str(2000)), problems: num });
const settings = shape({ modelId: str(200), provider: str(200), autoCompact: bool, softTriggersEnabled: bool, warning: optional(str(4000)) });

const cardFields = {
  checkpointId,
  trigger,
  operationId: optional(str(200)),
  tokensBefore: nonNeg,
  tokensAfter: nonNeg,
  before: categories,
  after: categories,
  durationMs: nonNeg,
  quality,
  fallbackReason: optional(str(2000)),
  level: optional((v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 3),
};
const card = shape(cardFields);
const base = { id, timestamp: optional(str(64)) };
const ITEM_SHAPES: Readonly<Record<TranscriptItemKind, Readonly<Record<string, Check>>>> = {
  user: { ...base, text: str(1_000_000), clientId: optional(str(200)) },
  assistant: { ...base, markdown: str(2_000_000), streaming: optional(bool), model: optional(str(200)) },
  tool: {
    ...base,
    name: str(200),
    argsSummary: str(4000),
    status: oneOf<ToolStatus>({ running: true, ok: true, error: true, cancelled: true }),
    durationMs: optional(nonNeg),
    resultPreview: optional(str(20_000)),
  },
  compaction: { ...base, card },
  checkpoint: { ...base, checkpointId, checkpointKind: oneOf<CheckpointKindView>({ auto: true, milestone: true, plan_pivot: true, user: true }), note: optional(str(10_000)) },
  error: { ...base, text: str(20_000) },
  info: { ...base, text: str(20_000) },
  loop: { ...base, text: str(20_000), toolName: str(200) },
};
const item = union('kind', ITEM_SHAPES);
const items = arrayOf(item, 10_000);

const providerChoice = union<'lm' | 'openai'>('kind', {
  lm: { modelId: str(200, 1) },
  openai: { baseUrl: (v) => v === '' || (typeof v === 'string' && v.length <= 2000 && /^https?:\/\/\S+$/.test(v)), model: str(200, 1) },
});
const setup = shape({
  required: bool,
  lmModels: arrayOf(shape({ id: str(200, 1), label: str(200), vendor: optional(str(200)), maxInputTokens: optional(nonNeg) }), 500),
  provider: nullable(providerChoice),
  hasApiKey: bool,
  message: optional(str(2000)),
});
const barrierFields = {
  phase: oneOf<'start' | 'progress' | 'end'>({ start: true, progress: true, end: true }),
  operationId: id,
  trigger,
  percent: (v: unknown) => num(v) && (v as number) >= 0 && (v as number) <= 100,
  line: optional(str(2000)),
  result: optional(
    shape({
      outcome: oneOf<BarrierOutcome>({ completed: true, skipped: true, cancelled: true, stale: true, failed: true }),
      tokensBefore: optional(nonNeg),
      tokensAfter: optional(nonNeg),
      checkpointId: optional(checkpointId),
      durationMs: optional(nonNeg),
      quality: optional(quality),
    }),
  ),
};
const queue = arrayOf(shape({ id, text: str(1_000_000) }), 100);
const model = shape({ id: str(200, 1), label: str(200), provider: oneOf<'openai' | 'lm'>({ openai: true, lm: true }), contextWindow: nonNeg, maxOutputTokens: nonNeg, hardLimit: nonNeg, softLimit: nonNeg });
const capsule = shape({
  checkpointId,
  title: optional(str(500)),
  trigger,
  quality,
  degradedReason: optional(str(2000)),
  tokens: nonNeg,
  createdAt: optional(str(64)),
  sections: arrayOf(shape({ name: str(200), body: str(200_000) }), 32),
  ledger: str(500_000),
  text: str(1_000_000),
  previous: nullable(shape({ checkpointId, text: str(1_000_000) })),
});

const MESSAGE_SHAPES: Readonly<Record<HostMessageType, Readonly<Record<string, Check>>>> = {
  snapshot: {
    session: nullable(session),
    budget: nullable(budget),
    settings,
    error: optional(str(4000)),
    transcript: shape({ items, hasMore: bool }),
    models: arrayOf(model, 500),
    currentModelId: nullable(str(200)),
    busy: bool,
    queue,
    barrier: nullable(shape(barrierFields)),
    setup: nullable(setup),
  },
  budget: { budget },
  notice: { level: oneOf<'info' | 'warning' | 'error'>({ info: true, warning: true, error: true }), text: str(4000) },
  itemsAppended: { items },
  itemUpdated: { item },
  streamDelta: { itemId: id, text: str(200_000) },
  streamEnd: { itemId: id, markdown: optional(str(2_000_000)) },
  barrier: barrierFields,
  compactionCard: { id, timestamp: optional(str(64)), card },
  capsule: { capsule },
  olderItems: { beforeId: id, items, hasMore: bool },
  setup: { setup },
  queue: { items: queue },
  busy: { busy: bool },
};
const message = union('type', MESSAGE_SHAPES);

/** The message if it has the shape the protocol promises, otherwise undefined (the caller reports it). */
export function parseHostMessage(data: unknown): HostToWebview | undefined {
  // The checks above mirror HostToWebviewSchema; the unit tests hold both to the same samples.
  return isRec(data) && message(data) ? (data as unknown as HostToWebview) : undefined;
}
