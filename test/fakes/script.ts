// Decides which scripted reply answers a chat request: matchers first, then the queue, then the fallback.
import type { ChatBody, ChatMessageIn, ChatRequestView, MatchSpec, Predicate, Responder, ScriptedReply } from './types.js';

/** The text of a message's content (string, or the text parts of an array). */
function messageText(m: ChatMessageIn): string {
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return '';
  return m.content.map((p: unknown) => (typeof p === 'object' && p !== null && 'text' in p && typeof p.text === 'string' ? p.text : '')).join('');
}

export function lastUserText(body: ChatBody): string {
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i];
    if (m?.role === 'user') return messageText(m);
  }
  return '';
}

/** Summary requests are the ones sent with `tool_choice: "none"` (docs/behaviour.md#capsule). */
export function isSummaryRequest(body: ChatBody): boolean {
  return body.tool_choice === 'none';
}

/** Turns a declarative match spec into a predicate; all given fields must hold. */
export function predicateOf(spec: MatchSpec): Predicate {
  return (req) => {
    const b = req.body;
    if (spec.summary !== undefined && isSummaryRequest(b) !== spec.summary) return false;
    if (spec.toolChoice !== undefined && b.tool_choice !== spec.toolChoice) return false;
    if (spec.lastUserContains !== undefined && !lastUserText(b).includes(spec.lastUserContains)) return false;
    if (spec.anyMessageContains !== undefined) {
      const needle = spec.anyMessageContains;
      if (!b.messages.some((m) => messageText(m).includes(needle))) return false;
    }
    if (spec.model !== undefined && b.model !== spec.model) return false;
    if (spec.stream !== undefined && (b.stream === true) !== spec.stream) return false;
    return true;
  };
}

interface Rule {
  readonly matches: Predicate;
  readonly reply: ScriptedReply | Responder;
  remaining: number;
}

const DEFAULT_FALLBACK: Responder = () => ({ text: 'ok' });

export class Script {
  private queue: ScriptedReply[] = [];
  private rules: Rule[] = [];

  constructor(private fallback: Responder = DEFAULT_FALLBACK) {}

  enqueue(replies: readonly ScriptedReply[]): void {
    this.queue.push(...replies);
  }

  /** Adds a matcher; `times` limits how often it applies (default: always). Earlier matchers win. */
  onMatch(when: Predicate | MatchSpec, reply: ScriptedReply | Responder, times = Infinity): void {
    const matches = typeof when === 'function' ? when : predicateOf(when);
    this.rules.push({ matches, reply, remaining: times });
  }

  setFallback(fallback: Responder): void {
    this.fallback = fallback;
  }

  /** Replies still queued (matchers not counted). */
  get pending(): number {
    return this.queue.length;
  }

  clear(): void {
    this.queue = [];
    this.rules = [];
    this.fallback = DEFAULT_FALLBACK;
  }

  async next(req: ChatRequestView): Promise<ScriptedReply> {
    for (const rule of this.rules) {
      if (rule.remaining <= 0 || !rule.matches(req)) continue;
      rule.remaining--;
      this.rules = this.rules.filter((r) => r.remaining > 0);
      return typeof rule.reply === 'function' ? rule.reply(req) : rule.reply;
    }
    const queued = this.queue.shift();
    if (queued) return queued;
    return this.fallback(req);
  }
}
