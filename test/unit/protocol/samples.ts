// Sample views (budget, models, setup, a compaction card, a capsule, a snapshot) shared by the protocol and headless-Chromium tests.
import type { BudgetView, CapsuleView, CompactionCard, HostToWebview, ModelOption, SetupState, TranscriptItem } from '../../../src/protocol/messages.js';

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
  { id: 'gpt-4o', label: 'GPT-4o', provider: 'openai', contextWindow: 128000, maxOutputTokens: 16384, hardLimit: 103424, softLimit: 82739, images: true },
  { id: 'copilot/claude', label: 'Claude (Copilot)', provider: 'lm', contextWindow: 65000, maxOutputTokens: 8000, hardLimit: 48808, softLimit: 39046 },
];

export const setup: SetupState = {
  required: true,
  lmModels: [{ id: 'copilot/gpt-4o', label: 'GPT-4o', vendor: 'copilot', maxInputTokens: 64000 }],
  provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen' },
  hasApiKey: false,
  message: 'Choose a model to start.',
  check: {
    status: 'warning',
    summary: '127.0.0.1:11434 answers: 3 models, "qwen" among them; it does not report the context window.',
    hint: 'Set the context window.',
  },
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

const items: TranscriptItem[] = [
  { id: 'i1', kind: 'user', text: 'Fix the login bug', timestamp: '2025-01-01T10:00:00.000Z', clientId: 'c1' },
  { id: 'i2', kind: 'assistant', markdown: 'Let me look at `src/auth.ts`.\n\n```ts\nconst a = 1;\n```', model: 'gpt-4o' },
  { id: 'i3', kind: 'tool', name: 'read_file', argsSummary: 'src/auth.ts', status: 'ok', durationMs: 12, resultPreview: 'export function login() {}' },
  { id: 'i4', kind: 'tool', name: 'run_command', argsSummary: 'npm test', status: 'running' },
  { id: 'i5', kind: 'compaction', card },
  { id: 'i6', kind: 'checkpoint', checkpointId: 'ck_abc123', checkpointKind: 'milestone', note: 'tests green' },
  { id: 'i7', kind: 'error', text: 'Automatic summarization did not complete' },
  {
    id: 'i7b',
    kind: 'error',
    text: 'The model request failed after 4 attempts: upstream exploded',
    fault: { turnId: 't_1', title: 'Server error', endpoint: '127.0.0.1:8080', status: 500, message: 'upstream exploded', hint: 'Retry.', retry: true },
  },
  {
    id: 'i7c',
    kind: 'error',
    text: 'Connection error.',
    fault: {
      turnId: 't_2',
      title: 'Connection refused',
      endpoint: 'localhost:11434',
      code: 'ECONNREFUSED',
      message: 'Connection error. (ECONNREFUSED)',
      hint: 'Start the server.',
      settings: 'baseUrl',
      retry: false,
    },
  },
  { id: 'i8', kind: 'info', text: 'Auto-compact is off' },
  { id: 'i10', kind: 'loop', text: 'The agent called read_file 3 times in a row with the same arguments, so the turn was stopped.', toolName: 'read_file' },
  { id: 'i9', kind: 'assistant', markdown: '', streaming: true },
  { id: 'i11', kind: 'user', text: 'Fix it differently', branch: { index: 2, count: 3, previous: 'i1', next: 'i13' } },
  { id: 'i12', kind: 'assistant', markdown: 'Retried answer', branch: { index: 1, count: 2, next: 'i14' } },
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

/** `n` alternating user/assistant items with ids `m0…m{n-1}` (oldest first). */
export function manyItems(n: number, from = 0): TranscriptItem[] {
  const out: TranscriptItem[] = [];
  for (let i = from; i < from + n; i++) {
    out.push(i % 2 === 0 ? { id: `m${i}`, kind: 'user', text: `message ${i}` } : { id: `m${i}`, kind: 'assistant', markdown: `answer **${i}** with \`code\`` });
  }
  return out;
}
