// The summary request of docs/behaviour.md#capsule: the compaction instruction, the cache-friendly message list, and bounding it.
import { CAPSULE_QUESTION, type ModelMessage } from '../transcript/modelInput.js';
import { formatTokens } from '../tokens/budgetFormat.js';
import { truncateToolResult } from '../transcript/truncation.js';

export const COMPACTION_INSTRUCTION = `Stop here: do not call tools and do not continue the task. Your job now is to compact this conversation so the work can continue in a fresh context window. Write a Context Capsule: a structured summary of everything above that a coding agent needs to carry on without the original messages.

Answer with exactly these seven sections, as level-2 markdown headings, in this order, and nothing before or after them:

## Goal
What the user ultimately wants, in one or two sentences.

## Constraints & Preferences
Requirements, conventions and preferences the user stated; keep their wording where it matters.

## Progress
### Done
### In progress
### Blocked

## Key Decisions
Each technical decision with its rationale ("decision: because ...").

## Next Steps
Concrete next actions, in order.

## Critical Context
Facts needed to continue: exact error messages, identifiers, values, commands, open questions.

## Relevant Files
One line per file: the path, then why it matters. Only paths that appear in the conversation; never guess a path.

If the conversation starts with an earlier summary (the answer to "${CAPSULE_QUESTION}"), merge it into yours: keep what is still true, update what changed, and drop nothing that still matters.
Be specific and dense: exact names, paths, commands and numbers beat prose. Stay under about 4,000 words. Do not add a file or command ledger: an exact one is appended automatically.`;

/** The size the seed's prompt asks for; it fits the default 8,192-token summary budget. */
const DEFAULT_SUMMARY_WORDS = 4000;

/**
 * Words to ask for given the summary request's real `max_tokens`: about two tokens per word of dense markdown,
 * rounded down to a hundred, so the answer ends before the output cap instead of being cut off.
 */
export function summaryWordsFor(maxTokens: number): number {
  return Math.max(100, Math.floor((maxTokens * 0.5) / 100) * 100);
}

function withWords(words: number): string {
  return COMPACTION_INSTRUCTION.replace('Stay under about 4,000 words.', `Stay under about ${formatTokens(words)} words.`);
}

/** The instruction, sized in words, with the user's `/compact focus` text (treated as data) when given. */
export function compactionInstruction(focus?: string, words: number = DEFAULT_SUMMARY_WORDS): string {
  const f = focus?.trim();
  const base = withWords(words);
  if (!f) return base;
  return `${base}\n\nThe user asked this summary to focus on the following (give it extra detail, but still write every section):\n"""\n${f}\n"""`;
}

/**
 * The exact list the model last received, then any messages it has not seen yet (entries appended
 * since), then the instruction last as a user message. The unchanged prefix lets providers that
 * cache prompts bill the history at the cached rate; only the suffix is new.
 */
export function buildSummaryMessages(lastSent: readonly ModelMessage[], instruction: string, unseen: readonly ModelMessage[] = []): ModelMessage[] {
  return [...lastSent, ...unseen, { role: 'user', content: instruction }];
}

/** Placeholder for a tool result too long to keep even truncated. */
export function omittedResultMarker(content: string): string {
  const lines = content.split('\n').length;
  return `[tool result omitted to fit the summary request: ${lines} lines, ${content.length} chars]`;
}

export interface BoundedMessages {
  readonly messages: ModelMessage[];
  /** False when even the instruction plus the capsule pair exceed the budget. */
  readonly fits: boolean;
  readonly tokens: number;
  readonly truncatedResults: number;
  readonly omittedResults: number;
  readonly droppedMessages: number;
}

/** Indivisible groups: an assistant with tool calls plus its results; every other message alone. */
function groupsOf(messages: readonly ModelMessage[]): number[][] {
  const groups: number[][] = [];
  messages.forEach((m, i) => {
    const last = groups[groups.length - 1];
    if (m.role === 'tool' && last) last.push(i);
    else groups.push([i]);
  });
  return groups;
}

const isCapsulePair = (messages: readonly ModelMessage[]): boolean =>
  messages[0]?.role === 'user' && messages[0].content === CAPSULE_QUESTION && messages[1]?.role === 'assistant';

/**
 * Shrinks a summary request until its messages fit `budget` tokens (the caller subtracts system
 * prompt and tool schemas): older tool results are truncated first (head and tail kept), then
 * replaced by a marker, then the oldest rounds are dropped whole. The instruction (the last message)
 * is never touched, a tool call never loses its results, and the previous capsule pair goes last
 * because it is the only copy of the state before it.
 */
export function boundSummaryMessages(messages: readonly ModelMessage[], tokensOfMessage: (m: ModelMessage) => number, budget: number): BoundedMessages {
  const msgs = [...messages];
  const tokens = msgs.map(tokensOfMessage);
  let total = tokens.reduce((a, b) => a + b, 0);
  let truncatedResults = 0;
  let omittedResults = 0;
  const body = msgs.length - 1; // index of the instruction
  const replace = (i: number, content: string): void => {
    const m = msgs[i];
    if (m?.role !== 'tool') return;
    const next: ModelMessage = { ...m, content };
    const t = tokensOfMessage(next);
    total += t - (tokens[i] ?? 0);
    tokens[i] = t;
    msgs[i] = next;
  };
  for (const shorten of [truncateToolResult, omittedResultMarker]) {
    for (let i = 0; i < body && total > budget; i++) {
      const m = msgs[i];
      if (m?.role !== 'tool') continue;
      const shorter = shorten(m.content);
      if (shorter.length >= m.content.length) continue;
      replace(i, shorter);
      if (shorten === truncateToolResult) truncatedResults++;
      else omittedResults++;
    }
  }
  // Drop whole groups, oldest first, keeping the capsule pair until nothing else is left.
  const groups = groupsOf(msgs.slice(0, body));
  const keepPair = isCapsulePair(msgs);
  // The pair goes last and as one unit: half of it (an answer without its question) would misstate the state.
  const order = keepPair ? [...groups.slice(2), [...(groups[0] ?? []), ...(groups[1] ?? [])]] : groups;
  const dropped = new Set<number>();
  for (const g of order) {
    if (total <= budget) break;
    for (const i of g) {
      dropped.add(i);
      total -= tokens[i] ?? 0;
    }
  }
  return {
    messages: msgs.filter((_, i) => !dropped.has(i)),
    fits: total <= budget,
    tokens: total,
    truncatedResults,
    omittedResults,
    droppedMessages: dropped.size,
  };
}
