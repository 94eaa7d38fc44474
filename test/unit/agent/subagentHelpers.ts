// Test helper for subagents: a scripted fake-server "model" that tells parent and child requests apart by the child's system prompt.
import type { ChatBody, ChatRequestView, ScriptedReply, ScriptedToolCall } from '../../fakes/openaiServer.js';
import { isSummaryRequest } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY, lastRole } from './agentHelpers.js';

function systemOf(body: ChatBody): string {
  const s = body.messages.find((m) => m.role === 'system');
  return typeof s?.content === 'string' ? s.content : '';
}

export function isChild(body: ChatBody): boolean {
  return systemOf(body).includes('You are a subagent');
}

/** The first user message of a request (a child's prompt, or the parent's task). */
export function firstUser(body: ChatBody): string {
  const u = body.messages.find((m) => m.role === 'user' && !String(m.content).startsWith('What did we do so far'));
  return String(u?.content ?? '');
}

export function allText(body: ChatBody): string {
  return JSON.stringify(body.messages);
}

export interface Scenario {
  /** The parent's calls for its task (once); after them it answers `parentAnswer`. */
  readonly parentCalls: readonly ScriptedToolCall[];
  readonly parentAnswer?: string;
  /** A child's reply, by its prompt and the request. */
  readonly child: (prompt: string, req: ChatRequestView) => ScriptedReply | Promise<ScriptedReply>;
}

export function scenario(s: Scenario) {
  return (req: ChatRequestView): ScriptedReply | Promise<ScriptedReply> => {
    if (isSummaryRequest(req.body)) return { text: GOOD_SUMMARY };
    if (isChild(req.body)) return s.child(firstUser(req.body), req);
    if (lastRole(req.body) === 'tool') return { text: s.parentAnswer ?? 'Parent: both reports are in.' };
    return { toolCalls: s.parentCalls };
  };
}

export function task(description: string, prompt: string, extra: Record<string, unknown> = {}): ScriptedToolCall {
  return { name: 'task', arguments: { description, prompt, ...extra } };
}

/** Resolves when `n` arrivals were counted, or rejects after a generous bound naming what was missing. */
export class Gate {
  private count = 0;
  private readonly waiters: (() => void)[] = [];
  constructor(private readonly n: number) {}
  arrive(): void {
    this.count++;
    if (this.count >= this.n) for (const w of this.waiters.splice(0)) w();
  }
  async wait(what: string, boundMs = 60_000): Promise<void> {
    if (this.count >= this.n) return;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`${what}: only ${this.count} of ${this.n} arrived`)), boundMs);
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}
