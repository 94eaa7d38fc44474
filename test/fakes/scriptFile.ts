// JSON scripts for the fake server (serve.ts --script, /_control endpoints): shape checks and loading.
import type { FakeModel, MatchSpec, ScriptedReply } from './types.js';

export interface ScriptRule {
  readonly match: MatchSpec;
  readonly reply: ScriptedReply;
  readonly times?: number;
}

/**
 * A script file is either an array of replies (the queue) or an object:
 * `{ replies?, rules?: [{match, reply, times?}], fallback?: reply, window?, models?, apiKey? }`.
 */
export interface ScriptFile {
  readonly replies: readonly ScriptedReply[];
  readonly rules: readonly ScriptRule[];
  readonly fallback?: ScriptedReply;
  readonly window?: number;
  readonly models?: readonly FakeModel[];
  readonly apiKey?: string;
}

const REPLY_KEYS = [
  'text',
  'toolCalls',
  'status',
  'delayMs',
  'hang',
  'truncatedJson',
  'dropConnection',
  'endStreamEarly',
  'rawBody',
  'empty',
  'contextOverflow',
];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks that `v` looks like a scripted reply (one known kind; a delay wraps another reply). */
export function asReply(v: unknown, where: string): ScriptedReply {
  if (!isRecord(v) || !REPLY_KEYS.some((k) => k in v)) {
    throw new Error(`${where}: not a scripted reply (expected one of ${REPLY_KEYS.join(', ')}): ${JSON.stringify(v)}`);
  }
  if ('delayMs' in v) asReply(v['then'], `${where}.then`);
  return v as unknown as ScriptedReply;
}

function asReplies(v: unknown, where: string): ScriptedReply[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return [asReply(v, where)];
  return v.map((r, i) => asReply(r, `${where}[${i}]`));
}

export function asRule(v: unknown, where: string): ScriptRule {
  if (!isRecord(v) || !isRecord(v['match'])) throw new Error(`${where}: a rule needs {match: {...}, reply: {...}}`);
  const times = v['times'];
  if (times !== undefined && typeof times !== 'number') throw new Error(`${where}.times must be a number`);
  return { match: v['match'] as MatchSpec, reply: asReply(v['reply'], `${where}.reply`), times };
}

export function parseScriptFile(json: unknown): ScriptFile {
  if (Array.isArray(json)) return { replies: asReplies(json, 'script'), rules: [] };
  if (!isRecord(json)) throw new Error('script: expected an array of replies or an object');
  const rules = json['rules'];
  if (rules !== undefined && !Array.isArray(rules)) throw new Error('script.rules must be an array');
  return {
    replies: asReplies(json['replies'], 'script.replies'),
    rules: (rules ?? []).map((r: unknown, i: number) => asRule(r, `script.rules[${i}]`)),
    fallback: json['fallback'] === undefined ? undefined : asReply(json['fallback'], 'script.fallback'),
    window: typeof json['window'] === 'number' ? json['window'] : undefined,
    models: Array.isArray(json['models']) ? (json['models'] as FakeModel[]) : undefined,
    apiKey: typeof json['apiKey'] === 'string' ? json['apiKey'] : undefined,
  };
}
