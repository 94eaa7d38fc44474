// Validates every message from the host before the webview touches it: the schemas' shapes as plain checks (zod stays host-side), the sizes from the shared LIMITS table.
import { LIMITS, LINE_MAX, LIST_LIMITS, PATH_MAX } from '../src/protocol/limits.js';
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
  SubagentLine,
  SubagentStatus,
  McpServerView,
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
const quality = oneOf<Quality>({ full: true, partial: true, degraded: true });
const id = str(LIMITS.id, 1);
const checkpointId: Check = (v) => typeof v === 'string' && v.length <= LIMITS.id && /^ck_[A-Za-z0-9_-]+$/.test(v);

const categories = shape({ system: num, tools: num, capsule: num, messages: num, toolResults: num, reservedOutput: num });
const budget = shape({
  model: str(LIMITS.id),
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
  lastCapsule: optional(shape({ ageMs: num, tokens: num, checkpointId: str(LIMITS.id), quality })),
  savingsRatio: num,
  reclaimableTokens: num,
  autoCompact: bool,
  nextTrigger: str(LIMITS.label),
  categories,
  percentOfHard: num,
  windowSource: optional(oneOf<'table' | 'provider' | 'learned' | 'override' | 'default'>({ table: true, provider: true, learned: true, override: true, default: true })),
  instructions: optional(arrayOf(shape({ label: str(LIMITS.line), tokens: num }), 200)),
  mode: optional(oneOf<'agent' | 'ask'>({ agent: true, ask: true })),
});
const session = shape({ id: str(LIMITS.id), title: optional(str(LIMITS.label)), createdAt: str(LIMITS.stamp), entries: num, readOnly: bool, readOnlyReason: optional(str(LIMITS.line)), problems: num });
const settings = shape({ modelId: str(LIMITS.id), provider: str(LIMITS.id), autoCompact: bool, softTriggersEnabled: bool, warning: optional(str(LIMITS.notice)) });

const cardFields = {
  checkpointId,
  trigger,
  operationId: optional(str(LIMITS.id)),
  tokensBefore: nonNeg,
  tokensAfter: nonNeg,
  before: categories,
  after: categories,
  durationMs: nonNeg,
  quality,
  fallbackReason: optional(str(LIMITS.line)),
  level: optional((v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 3),
  undone: optional(bool),
  loaded: optional(bool),
};
const card = shape(cardFields);
const fault = shape({
  turnId: id,
  title: str(LIMITS.label),
  endpoint: optional(str(LIMITS.label)),
  status: optional((v) => Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 599),
  code: optional(str(LIMITS.id)),
  message: str(LIMITS.notice),
  hint: str(LIMITS.notice),
  settings: optional(oneOf<'apiKey' | 'model' | 'baseUrl'>({ apiKey: true, model: true, baseUrl: true })),
  retry: bool,
});
const base = { id, timestamp: optional(str(LIMITS.stamp)) };
const links = arrayOf(str(PATH_MAX, 1), LIST_LIMITS.links);
const lineNo: Check = (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= LINE_MAX;
const attachment = shape({ path: str(PATH_MAX, 1), startLine: optional(lineNo), endLine: optional(lineNo) });
const int = (v: unknown): boolean => Number.isInteger(v);
/** A fork's switcher: the same rules as BranchViewSchema (index within count, neighbours exactly where they exist). */
const branchShape = shape({ index: int, count: int, previous: optional(id), next: optional(id) });
const branch: Check = (v) => {
  if (!branchShape(v) || !isRec(v)) return false;
  const { index, count, previous, next } = v as { index: number; count: number; previous?: string; next?: string };
  return index >= 1 && count >= 2 && count <= LIST_LIMITS.branches && index <= count && (previous !== undefined) === (index > 1) && (next !== undefined) === (index < count);
};
const subagent = shape({
  id: str(LIMITS.id),
  description: str(LIMITS.label),
  status: oneOf<SubagentStatus>({ running: true, compacting: true, done: true, stopped: true }),
  reason: optional(str(LIMITS.notice)),
  contextTokens: nonNeg,
  contextWindow: nonNeg,
  requests: nonNeg,
  tokens: nonNeg,
  compactions: nonNeg,
});
const toolStatus = oneOf<ToolStatus>({ running: true, ok: true, error: true, cancelled: true });
const subagentLine = shape({
  kind: oneOf<SubagentLine['kind']>({ user: true, assistant: true, tool: true, compaction: true }),
  text: str(LIMITS.answer),
  name: optional(str(LIMITS.id)),
  status: optional(toolStatus),
});
const pageNo: Check = (v) => Number.isInteger(v) && (v as number) >= 1;
const ITEM_SHAPES: Readonly<Record<TranscriptItemKind, Readonly<Record<string, Check>>>> = {
  user: { ...base, text: str(LIMITS.input), clientId: optional(str(LIMITS.id)), branch: optional(branch), links: optional(links), images: optional((v) => int(v) && (v as number) >= 1 && (v as number) <= 100) },
  assistant: { ...base, markdown: str(LIMITS.document), streaming: optional(bool), model: optional(str(LIMITS.id)), branch: optional(branch), links: optional(links) },
  tool: {
    ...base,
    name: str(LIMITS.id),
    argsSummary: str(LIMITS.notice),
    status: oneOf<ToolStatus>({ running: true, ok: true, error: true, cancelled: true }),
    durationMs: optional(nonNeg),
    resultPreview: optional(str(LIMITS.answer)),
    links: optional(links),
    diff: optional(bool),
    subagent: optional(subagent),
  },
  compaction: { ...base, card },
  checkpoint: { ...base, checkpointId, checkpointKind: oneOf<CheckpointKindView>({ auto: true, milestone: true, plan_pivot: true, user: true }), note: optional(str(LIMITS.detail)) },
  error: { ...base, text: str(LIMITS.answer), fault: optional(fault) },
  info: { ...base, text: str(LIMITS.answer) },
  loop: { ...base, text: str(LIMITS.answer), toolName: str(LIMITS.id) },
};
const item = union('kind', ITEM_SHAPES);
const items = arrayOf(item, LIST_LIMITS.items);

const providerChoice = union<'lm' | 'openai'>('kind', {
  lm: { modelId: str(LIMITS.id, 1) },
  openai: { baseUrl: (v) => v === '' || (typeof v === 'string' && v.length <= LIMITS.line && /^https?:\/\/\S+$/.test(v)), model: str(LIMITS.id, 1) },
});
const setup = shape({
  required: bool,
  lmModels: arrayOf(shape({ id: str(LIMITS.id, 1), label: str(LIMITS.id), vendor: optional(str(LIMITS.id)), maxInputTokens: optional(nonNeg) }), LIST_LIMITS.models),
  provider: nullable(providerChoice),
  hasApiKey: bool,
  message: optional(str(LIMITS.line)),
  check: optional(shape({ status: oneOf<'checking' | 'ok' | 'warning' | 'error'>({ checking: true, ok: true, warning: true, error: true }), summary: str(LIMITS.line), hint: optional(str(LIMITS.line)) })),
});
const barrierFields = {
  phase: oneOf<'start' | 'progress' | 'end'>({ start: true, progress: true, end: true }),
  operationId: id,
  trigger,
  percent: (v: unknown) => num(v) && (v as number) >= 0 && (v as number) <= 100,
  line: optional(str(LIMITS.line)),
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
const queue = arrayOf(shape({ id, text: str(LIMITS.input) }), LIST_LIMITS.queue);
const model = shape({ id: str(LIMITS.id, 1), label: str(LIMITS.id), provider: oneOf<'openai' | 'lm'>({ openai: true, lm: true }), contextWindow: nonNeg, maxOutputTokens: nonNeg, hardLimit: nonNeg, softLimit: nonNeg, images: optional(bool) });
const capsule = shape({
  checkpointId,
  title: optional(str(LIMITS.label)),
  trigger,
  quality,
  degradedReason: optional(str(LIMITS.line)),
  tokens: nonNeg,
  createdAt: optional(str(LIMITS.stamp)),
  sections: arrayOf(shape({ name: str(LIMITS.id), body: str(LIMITS.delta) }), LIST_LIMITS.sections),
  ledger: str(LIMITS.capsule),
  text: str(LIMITS.input),
  previous: nullable(shape({ checkpointId, text: str(LIMITS.input) })),
  links: optional(links),
});

const plan = arrayOf(shape({ step: str(LIMITS.label, 1), status: oneOf<'pending' | 'in_progress' | 'done'>({ pending: true, in_progress: true, done: true }) }), LIST_LIMITS.planSteps);

const approvals = arrayOf(
  shape({
    id,
    kind: oneOf<'write' | 'command'>({ write: true, command: true }),
    title: str(LIMITS.label),
    command: optional(str(LIMITS.notice)),
    cwd: optional(str(LIMITS.label)),
    path: optional(str(LIMITS.label)),
    diff: optional(str(LIMITS.detail)),
    rule: optional(str(LIMITS.label)),
    ruleChoices: optional(arrayOf(str(LIMITS.label), LIST_LIMITS.ruleChoices)),
  }),
  LIST_LIMITS.approvals,
);
const allowRules = arrayOf(shape({ rule: str(LIMITS.label, 1), scope: oneOf<'user' | 'workspace'>({ user: true, workspace: true }) }), LIST_LIMITS.allowRules);
const mcpServers = arrayOf(
  shape({
    name: str(LIMITS.id, 1),
    status: oneOf<McpServerView['status']>({ starting: true, ready: true, restarting: true, failed: true, stopped: true, disabled: true }),
    tools: nonNeg,
    schemaTokens: nonNeg,
    transport: optional(oneOf<NonNullable<McpServerView['transport']>>({ stdio: true, http: true, sse: true })),
    source: optional(str(LIMITS.label)),
    error: optional(str(LIMITS.notice)),
  }),
  LIST_LIMITS.mcpServers,
);

const MESSAGE_SHAPES: Readonly<Record<HostMessageType, Readonly<Record<string, Check>>>> = {
  snapshot: {
    session: nullable(session),
    budget: nullable(budget),
    settings,
    error: optional(str(LIMITS.notice)),
    transcript: shape({ items, hasMore: bool }),
    models: arrayOf(model, LIST_LIMITS.models),
    currentModelId: nullable(str(LIMITS.id)),
    busy: bool,
    queue,
    barrier: nullable(shape(barrierFields)),
    setup: nullable(setup),
    plan: optional(plan),
    approvals: optional(approvals),
    allowRules: optional(allowRules),
    mcpServers: optional(mcpServers),
  },
  budget: { budget },
  notice: { level: oneOf<'info' | 'warning' | 'error'>({ info: true, warning: true, error: true }), text: str(LIMITS.notice), transient: optional(bool) },
  itemsAppended: { items },
  itemUpdated: { item },
  streamDelta: { itemId: id, text: str(LIMITS.delta) },
  streamEnd: { itemId: id, markdown: optional(str(LIMITS.document)), item: optional(item) },
  barrier: barrierFields,
  compactionCard: { id, timestamp: optional(str(LIMITS.stamp)), card },
  capsule: { capsule },
  olderItems: { beforeId: id, items, hasMore: bool },
  setup: { setup },
  queue: { items: queue },
  busy: { busy: bool },
  composer: { text: str(LIMITS.input) },
  plan: { plan },
  approvals: { approvals, allowRules: optional(allowRules) },
  fileMatches: { requestId: nonNeg, query: str(PATH_MAX), files: arrayOf(str(PATH_MAX, 1), LIST_LIMITS.fileMatches) },
  mcpServers: { servers: mcpServers },
  mention: { mention: str(PATH_MAX + 40, 2), attachment },
  subagentTranscript: { itemId: id, page: pageNo, pages: pageNo, lines: arrayOf(subagentLine, LIST_LIMITS.subagentLines) },
};
const message = union('type', MESSAGE_SHAPES);

/** The message if it has the shape the protocol promises, otherwise undefined (the caller reports it). */
export function parseHostMessage(data: unknown): HostToWebview | undefined {
  // The checks above mirror HostToWebviewSchema; the unit tests hold both to the same samples.
  return isRec(data) && message(data) ? (data as unknown as HostToWebview) : undefined;
}
