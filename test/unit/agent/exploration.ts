// A scripted exploration task (docs/subagents.md#measured): read N files, then report — inline by the parent, or split over two subagents.
import type { ChatBody, ChatRequestView, FakeOpenAIServer, ScriptedReply } from '../../fakes/openaiServer.js';
import { isSummaryRequest } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY } from './agentHelpers.js';
import { firstUser, isChild, task } from './subagentHelpers.js';

/** Files f<from>…f<to-1> of the workspace, as the child prompt names them. */
function files(list: readonly number[]): string {
  return list.map((i) => `ws/src/f${i}.ts`).join(',');
}

/**
 * The model: every non-summary request of one conversation (the parent, or a child by its prompt) takes the next
 * step — read the next file of its list, then answer. Requests of one conversation are sequential, so a counter per
 * conversation is its position, whatever compaction did to the messages.
 */
export function explorationModel(mode: 'inline' | 'subagents', fileCount: number, split: readonly (readonly number[])[] = halves(fileCount)) {
  const steps = new Map<string, number>();
  return (req: ChatRequestView): ScriptedReply => {
    const body: ChatBody = req.body;
    if (isSummaryRequest(body)) return { text: GOOD_SUMMARY };
    const key = isChild(body) ? firstUser(body) : 'parent';
    const n = steps.get(key) ?? 0;
    steps.set(key, n + 1);
    if (isChild(body)) {
      const list = (/read (\S+) and report/.exec(key)?.[1] ?? '').split(',').filter((p) => p !== '');
      const path = list[n];
      return path === undefined
        ? { text: `Report: ${list.length} files read; each exports constants v<i>_<line>; nothing else of note.` }
        : { toolCalls: [{ name: 'read_file', arguments: { path } }] };
    }
    if (mode === 'subagents') {
      if (n === 0) return { toolCalls: split.map((part, i) => task(`explore part ${i + 1}`, `CHILD ${i + 1}: read ${files(part)} and report`)) };
      return { text: 'Final: the workspace holds constant modules only.' };
    }
    return n < fileCount
      ? { toolCalls: [{ name: 'read_file', arguments: { path: `ws/src/f${n}.ts` } }] }
      : { text: 'Final: the workspace holds constant modules only.' };
  };
}

function halves(n: number): number[][] {
  const all = Array.from({ length: n }, (_, i) => i);
  return [all.slice(0, Math.ceil(n / 2)), all.slice(Math.ceil(n / 2))];
}

/** The parent's figures from what the server received: its largest prompt, and the prompt tokens of every request (parent, children, summaries). */
export function figures(server: FakeOpenAIServer): {
  parentLargestPrompt: number;
  parentRequests: number;
  childRequests: number;
  summaryRequests: number;
  totalPromptTokens: number;
} {
  let parentLargestPrompt = 0;
  let parentRequests = 0;
  let childRequests = 0;
  let summaryRequests = 0;
  let totalTokens = 0;
  for (const r of server.chatRequests) {
    const body = r.body as ChatBody;
    totalTokens += r.promptTokens ?? 0;
    if (isSummaryRequest(body)) summaryRequests++;
    else if (isChild(body)) childRequests++;
    else {
      parentRequests++;
      parentLargestPrompt = Math.max(parentLargestPrompt, r.promptTokens ?? 0);
    }
  }
  return { parentLargestPrompt, parentRequests, childRequests, summaryRequests, totalPromptTokens: totalTokens };
}
