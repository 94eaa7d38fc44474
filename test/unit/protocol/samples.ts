// Sample host⇄webview messages for every kind, shared by the protocol, webview-guard and headless-Chromium tests.
import type {
  BudgetView,
  CapsuleView,
  CompactionCard,
  HostToWebview,
  ModelOption,
  SetupState,
  TranscriptItem,
  WebviewToHost,
} from '../../../src/protocol/messages.js';
import { WebviewCommandSchema } from '../../../src/protocol/messages.js';

export const budget: BudgetView = {
  model: 'gpt-4o',
  contextWindow: 65000,
  maxOutputTokens: 8000,
  effectiveTokens: 38420,
  source: 'estimated',
  softLimit: 39046,
  hardLimit: 48808,
  safetyReserveTokens: 8192,
  keepRecentTokens: 20000,
  capsules: 2,
  messages: 47,
  turns: 12,
  lastCapsule: { ageMs: 120000, tokens: 2840, checkpointId: 'ck_abc', quality: 'full' },
  savingsRatio: 0.48,
  reclaimableTokens: 18420,
  autoCompact: true,
  nextTrigger: '~3 turns',
  categories: { system: 1200, tools: 900, capsule: 2840, messages: 20000, toolResults: 12000, reservedOutput: 8000 },
  percentOfHard: 78.7,
};

export const models: ModelOption[] = [
  { id: 'gpt-4o', label: 'GPT-4o', provider: 'openai', contextWindow: 128000, maxOutputTokens: 16384, hardLimit: 103424, softLimit: 82739 },
  { id: 'copilot/claude', label: 'Claude (Copilot)', provider: 'lm', contextWindow: 65000, maxOutputTokens: 8000, hardLimit: 48808, softLimit: 39046 },
];

export const setup: SetupState = {
  required: true,
  lmModels: [{ id: 'copilot/gpt-4o', label: 'GPT-4o', vendor: 'copilot', maxInputTokens: 64000 }],
  provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen' },
  hasApiKey: false,
  message: 'Choose a model to start.',
};

export const card: CompactionCard = {
  checkpointId: 'ck_abc123',
  trigger: 'auto_threshold',
  operationId: 'op_1',
  tokensBefore: 41000,
  tokensAfter: 12300,
  before: { system: 1200, tools: 900, capsule: 0, messages: 24000, toolResults: 14900, reservedOutput: 8000 },
  after: { system: 1200, tools: 900, capsule: 2800, messages: 5200, toolResults: 2200, reservedOutput: 8000 },
  durationMs: 3200,
  quality: 'degraded',
  fallbackReason: 'summary request timed out after 15 s',
  level: 1,
};

export const capsule: CapsuleView = {
  checkpointId: 'ck_abc123',
  title: 'Login fix',
  trigger: 'auto_threshold',
  quality: 'full',
  tokens: 2800,
  createdAt: '2025-01-01T10:00:00.000Z',
  sections: [
    { name: 'Goal', body: 'Fix the login redirect loop.' },
    { name: 'Progress', body: '- Done: reproduced\n- In progress: patch `src/auth.ts`' },
    { name: 'Next Steps', body: '1. Run the auth tests' },
  ],
  ledger: '- Files modified: `src/auth.ts`\n- Commands: `npm test` (exit 1)',
  text: '## Goal\nFix the login redirect loop.\n## Progress\n- Done: reproduced\n- In progress: patch src/auth.ts\n## Next Steps\n1. Run the auth tests',
  previous: { checkpointId: 'ck_prev1', text: '## Goal\nFix the login redirect loop.\n## Progress\n- In progress: reproduce\n## Next Steps\n1. Reproduce' },
};

export const items: TranscriptItem[] = [
  { id: 'i1', kind: 'user', text: 'Fix the login bug', timestamp: '2025-01-01T10:00:00.000Z', clientId: 'c1' },
  { id: 'i2', kind: 'assistant', markdown: 'Let me look at `src/auth.ts`.\n\n```ts\nconst a = 1;\n```', model: 'gpt-4o' },
  { id: 'i3', kind: 'tool', name: 'read_file', argsSummary: 'src/auth.ts', status: 'ok', durationMs: 12, resultPreview: 'export function login() {}' },
  { id: 'i4', kind: 'tool', name: 'run_command', argsSummary: 'npm test', status: 'running' },
  { id: 'i5', kind: 'compaction', card },
  { id: 'i6', kind: 'checkpoint', checkpointId: 'ck_abc123', checkpointKind: 'milestone', note: 'tests green' },
  { id: 'i7', kind: 'error', text: 'Automatic summarization did not complete' },
  { id: 'i8', kind: 'info', text: 'Auto-compact is off' },
  { id: 'i10', kind: 'loop', text: 'The agent called read_file 3 times in a row with the same arguments, so the turn was stopped.', toolName: 'read_file' },
  { id: 'i9', kind: 'assistant', markdown: '', streaming: true },
];

export const snapshot: Extract<HostToWebview, { type: 'snapshot' }> = {
  type: 'snapshot',
  session: { id: 's_1', title: 'Fix login', createdAt: '2025-01-01T00:00:00.000Z', entries: 12, readOnly: false, problems: 0 },
  budget,
  settings: { modelId: 'gpt-4o', provider: 'openai', autoCompact: true, softTriggersEnabled: true },
  transcript: { items, hasMore: false },
  models,
  currentModelId: 'gpt-4o',
  busy: false,
  queue: [],
  barrier: null,
  setup: { ...setup, required: false },
};

export const HOST_SAMPLES: readonly HostToWebview[] = [
  snapshot,
  {
    type: 'snapshot',
    session: { id: 's_2', title: 'x', createdAt: '2025-01-01T00:00:00.000Z', entries: 12, readOnly: true, readOnlyReason: 'open in another window', problems: 1 },
    budget,
    settings: { modelId: 'gpt-4o', provider: 'openai', autoCompact: true, softTriggersEnabled: false, warning: 'Compaction disabled: config validation failed: x' },
    transcript: { items: [], hasMore: true },
    models: [],
    currentModelId: null,
    busy: true,
    queue: [{ id: 'q1', text: 'and then run the tests' }],
    barrier: { phase: 'progress', operationId: 'op_1', trigger: 'hard_limit', percent: 82 },
    setup,
  },
  { type: 'snapshot', session: null, budget: null, settings: { modelId: 'm', provider: 'openai', autoCompact: false, softTriggersEnabled: false }, error: 'disk full', transcript: { items: [], hasMore: false }, models: [], currentModelId: null, busy: false, queue: [], barrier: null, setup: null },
  { type: 'budget', budget: { ...budget, source: 'provider_usage', lastCapsule: undefined } },
  { type: 'notice', level: 'warning', text: 'Compaction is not available yet' },
  { type: 'itemsAppended', items },
  { type: 'itemUpdated', item: { id: 'i4', kind: 'tool', name: 'run_command', argsSummary: 'npm test', status: 'error', durationMs: 5400, resultPreview: '1 failing' } },
  { type: 'streamDelta', itemId: 'i9', text: 'Hello **wor' },
  { type: 'streamEnd', itemId: 'i9' },
  { type: 'streamEnd', itemId: 'i9', markdown: 'Hello **world**' },
  { type: 'barrier', phase: 'start', operationId: 'op_2', trigger: 'auto_threshold', percent: 0 },
  { type: 'barrier', phase: 'progress', operationId: 'op_2', trigger: 'auto_threshold', percent: 82 },
  { type: 'barrier', phase: 'end', operationId: 'op_2', trigger: 'auto_threshold', percent: 100, result: { outcome: 'completed', tokensBefore: 41000, tokensAfter: 12300, checkpointId: 'ck_abc123', durationMs: 3200, quality: 'full' } },
  { type: 'barrier', phase: 'end', operationId: 'op_3', trigger: 'user', percent: 100, line: 'Nothing safe to compact yet', result: { outcome: 'skipped' } },
  { type: 'compactionCard', id: 'card_1', card },
  { type: 'capsule', capsule },
  { type: 'capsule', capsule: { ...capsule, previous: null, quality: 'degraded', degradedReason: 'provider error 500' } },
  { type: 'olderItems', beforeId: 'i1', items: [{ id: 'i0', kind: 'user', text: 'older' }], hasMore: true },
  { type: 'setup', setup },
  { type: 'setup', setup: { required: false, lmModels: [], provider: { kind: 'lm', modelId: 'copilot/gpt-4o' }, hasApiKey: true } },
  { type: 'queue', items: [{ id: 'c2', text: 'queued text' }] },
  { type: 'busy', busy: true },
];

export const WEBVIEW_SAMPLES: readonly WebviewToHost[] = [
  { type: 'ready' },
  ...WebviewCommandSchema.options.map((command) => ({ type: 'command' as const, command })),
  { type: 'webviewError', message: 'boom', stack: 'Error: boom\n at x' },
  { type: 'send', text: 'hello' },
  { type: 'send', text: '/compact focus on auth', clientId: 'c_1' },
  { type: 'cancel' },
  { type: 'selectModel', id: 'gpt-4o' },
  { type: 'setupProvider', provider: { kind: 'lm', modelId: 'copilot/gpt-4o' } },
  { type: 'setupProvider', provider: { kind: 'openai', baseUrl: '', model: 'gpt-4o' } },
  { type: 'setupProvider', provider: { kind: 'openai', baseUrl: 'https://openrouter.ai/api/v1', model: 'x/y' } },
  { type: 'setApiKey', key: 'sk-test' },
  { type: 'loadOlder', beforeId: 'i1' },
  { type: 'viewCapsule', checkpointId: 'ck_abc123' },
  { type: 'rewind', checkpointId: 'ck_abc123' },
  { type: 'exportCapsule', checkpointId: 'ck_abc123' },
  { type: 'copy', text: 'const a = 1;' },
  { type: 'openLink', href: 'https://example.com/' },
];

/** Host messages that must fail validation (the webview guard must reject them too). */
export const BAD_HOST: readonly unknown[] = [
  null,
  'snapshot',
  {},
  { type: 'nope' },
  { type: 'budget' },
  { type: 'budget', budget: { ...budget, source: 'guessed' } },
  { type: 'budget', budget: { ...budget, effectiveTokens: '38k' } },
  { type: 'budget', budget: { ...budget, categories: { system: 1 } } },
  { type: 'snapshot', session: null, budget: null },
  { ...snapshot, transcript: { items: 'x', hasMore: false } },
  { ...snapshot, transcript: { items: [{ id: 'a', kind: 'robot', text: 'x' }], hasMore: false } },
  { ...snapshot, busy: 'yes' },
  { type: 'notice', level: 'fatal', text: 'x' },
  { type: 'itemsAppended', items: [{ id: 'a', kind: 'user' }] },
  { type: 'itemsAppended', items: [{ id: '', kind: 'user', text: 'x' }] },
  { type: 'itemUpdated', item: { id: 'a', kind: 'tool', name: 'x', argsSummary: '', status: 'exploded' } },
  { type: 'itemUpdated', item: { id: 'a', kind: 'assistant', markdown: 42 } },
  { type: 'streamDelta', itemId: 'a' },
  { type: 'streamDelta', text: 'x' },
  { type: 'barrier', phase: 'middle', operationId: 'op', trigger: 'user', percent: 5 },
  { type: 'barrier', phase: 'progress', operationId: 'op', trigger: 'user', percent: 150 },
  { type: 'barrier', phase: 'progress', operationId: 'op', trigger: 'whenever', percent: 5 },
  { type: 'compactionCard', id: 'c', card: { ...card, tokensBefore: -1 } },
  { type: 'compactionCard', id: 'c', card: { ...card, checkpointId: 'abc' } },
  { type: 'capsule', capsule: { ...capsule, sections: 'Goal' } },
  { type: 'olderItems', beforeId: 'i1', items: [] },
  { type: 'setup', setup: { ...setup, hasApiKey: 'no' } },
  { type: 'queue', items: [{ id: 'q' }] },
  { type: 'busy' },
];

/** Webview messages that must fail validation on the host. */
export const BAD_WEBVIEW: readonly unknown[] = [
  null,
  'ready',
  42,
  [],
  {},
  { type: 'nope' },
  { type: 'READY' },
  { type: 'command' },
  { type: 'command', command: 'deleteEverything' },
  { type: 'command', command: 'capsule.newChat' },
  { type: 'webviewError' },
  { type: 'webviewError', message: 7 },
  { type: 'webviewError', message: 'x'.repeat(5000) },
  { type: ['ready'] },
  { type: 'send' },
  { type: 'send', text: '' },
  { type: 'send', text: 5 },
  { type: 'selectModel' },
  { type: 'setupProvider', provider: { kind: 'openai', baseUrl: 'javascript:alert(1)', model: 'x' } },
  { type: 'setupProvider', provider: { kind: 'openai', baseUrl: 'file:///etc/passwd', model: 'x' } },
  { type: 'setupProvider', provider: { kind: 'openai', baseUrl: '', model: '' } },
  { type: 'setupProvider', provider: { kind: 'anthropic', modelId: 'x' } },
  { type: 'setupProvider', kind: 'lm', modelId: 'x' },
  { type: 'setApiKey', key: '' },
  { type: 'setApiKey', key: 'k'.repeat(5000) },
  { type: 'loadOlder' },
  { type: 'viewCapsule', checkpointId: '../../etc/passwd' },
  { type: 'rewind', checkpointId: 'abc' },
  { type: 'exportCapsule', checkpointId: 'ck_a b' },
  { type: 'copy' },
  { type: 'openLink', href: '' },
  { type: 'openLink' },
];

/** `n` alternating user/assistant items with ids `m0…m{n-1}` (oldest first). */
export function manyItems(n: number, from = 0): TranscriptItem[] {
  const out: TranscriptItem[] = [];
  for (let i = from; i < from + n; i++) {
    out.push(i % 2 === 0 ? { id: `m${i}`, kind: 'user', text: `message ${i}` } : { id: `m${i}`, kind: 'assistant', markdown: `answer **${i}** with \`code\`` });
  }
  return out;
}
