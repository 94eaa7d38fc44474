// Classifies provider failures (docs/behaviour.md#capsule, #overflow): context overflow, transient (retry), abort, or fatal — from plain error shapes.
import { overflowFacts } from './overflowFacts.js';
import { OVERFLOW_CODES, matchesGenericOverflow, matchesKnownOverflow } from './overflowPatterns.js';

type FaultKind = 'overflow' | 'transient' | 'abort' | 'fatal';

export interface FaultInfo {
  readonly kind: FaultKind;
  readonly status?: number;
  /** A one-line description fit for a log or a UI notice (clipped). */
  readonly message: string;
  /** How long the provider asked us to wait before retrying; only for transient faults. */
  readonly retryAfterMs?: number;
  /** The provider's or the network layer's error code, when there is one. */
  readonly code?: string;
  /** Overflow only: the window the provider's error states (its words, or llama.cpp's `n_ctx`). */
  readonly statedWindow?: number;
  /** Overflow only: the prompt tokens the provider counted for the rejected request. */
  readonly requestedTokens?: number;
}

/** HTTP statuses worth retrying: timeouts, "too early", rate limits; every 5xx is added separately. */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([408, 425, 429]);

/** Node / undici network error codes that describe a connection problem, not a bad request. */
const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** IncompleteStreamError: a 200 stream that stopped before its finish (a dropped proxy, a non-SSE body) — worth another try. */
const TRANSIENT_NAMES: ReadonlySet<string> = new Set([
  'APIConnectionError',
  'APIConnectionTimeoutError',
  'TimeoutError',
  'ConnectTimeoutError',
  'IncompleteStreamError',
]);
const ABORT_NAMES: ReadonlySet<string> = new Set(['AbortError', 'APIUserAbortError']);
/** The openai SDK's APIUserAbortError text: a minified bundle renames the class, the message survives. */
const ABORT_MESSAGE = /^request was aborted\.?$/i;
const TRANSIENT_MESSAGE = /\b(?:terminated|fetch failed|socket hang up|other side closed|network error|connection error|timed out|timeout)\b/i;
/** A 429 that no wait will fix: the account is out of credit. */
const NOT_RETRYABLE_CODES: ReadonlySet<string> = new Set(['insufficient_quota', 'billing_hard_limit_reached', 'billing_not_active']);
const MAX_MESSAGE_CHARS = 500;
const MAX_CAUSE_DEPTH = 5;

/**
 * Never throws. `nowMs` lets a `Retry-After: <HTTP date>` header be turned into a delay; without it only the
 * delta-seconds form (and `retry-after-ms`) is read.
 */
export function classifyError(err: unknown, nowMs?: number): FaultInfo {
  const chain = causeChain(err);
  const status = statusOf(err);
  const codes = chain.flatMap(codesOf);
  const texts = chain.flatMap(textsOf);
  const names = chain.flatMap(namesOf);
  const message = clip(primaryMessage(err, texts));
  const code = codes[0];
  const base = { message, ...(status === undefined ? {} : { status }), ...(code === undefined ? {} : { code }) };

  if (isAbort(err)) return { kind: 'abort', ...base };
  if (isOverflow(status, codes, texts)) {
    const body = field(err, 'error');
    const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined);
    const nCtx = num(field(body, 'n_ctx'));
    const nPrompt = num(field(body, 'n_prompt_tokens'));
    const facts = overflowFacts(texts, { ...(nCtx === undefined ? {} : { nCtx }), ...(nPrompt === undefined ? {} : { nPrompt }) });
    return { kind: 'overflow', ...base, ...facts };
  }
  if (codes.some((c) => NOT_RETRYABLE_CODES.has(c))) return { kind: 'fatal', ...base };
  if (isTransient(status, codes, texts, names)) {
    const retryAfterMs = retryAfterOf(err, texts, nowMs);
    return { kind: 'transient', ...base, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  return { kind: 'fatal', ...base };
}

function isTransientStatus(status: number): boolean {
  return TRANSIENT_STATUSES.has(status) || (status >= 500 && status <= 599);
}

/** Only the error itself: a network failure whose root cause happens to be an abort is still a network failure. */
function isAbort(err: unknown): boolean {
  if (namesOf(err).some((n) => ABORT_NAMES.has(n))) return true;
  const message = str(field(err, 'message'));
  return message !== undefined && statusOf(err) === undefined && ABORT_MESSAGE.test(message.trim());
}

function isOverflow(status: number | undefined, codes: readonly string[], texts: readonly string[]): boolean {
  if (codes.some((c) => OVERFLOW_CODES.includes(c))) return true;
  if (texts.some(matchesKnownOverflow)) return true;
  // 413 Payload Too Large: the request itself is too big, so only a smaller request can pass — compaction's job.
  if (status === 413) return true;
  return status === 400 && texts.some(matchesGenericOverflow);
}

function isTransient(status: number | undefined, codes: readonly string[], texts: readonly string[], names: readonly string[]): boolean {
  if (status !== undefined) return isTransientStatus(status);
  if (codes.some((c) => TRANSIENT_NETWORK_CODES.has(c))) return true;
  if (names.some((n) => TRANSIENT_NAMES.has(n))) return true;
  return texts.some((t) => TRANSIENT_MESSAGE.test(t));
}

// ---- reading unknown shapes ----------------------------------------------------------------------------

function field(o: unknown, key: string): unknown {
  if (o === null || (typeof o !== 'object' && typeof o !== 'function')) return undefined;
  try {
    return (o as Record<string, unknown>)[key];
  } catch {
    return undefined; // a throwing getter must not break classification
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The error, then its `cause`s: undici wraps ECONNRESET as `TypeError('fetch failed', { cause })`. */
function causeChain(err: unknown): readonly unknown[] {
  const out: unknown[] = [];
  let cur: unknown = err;
  while (cur !== undefined && cur !== null && out.length < MAX_CAUSE_DEPTH && !out.includes(cur)) {
    out.push(cur);
    cur = field(cur, 'cause');
  }
  return out;
}

/** The HTTP status; a streamed error event only carries it as a numeric `error.code` (vLLM, OpenRouter). */
function statusOf(err: unknown): number | undefined {
  const body = field(err, 'error');
  const candidates = [
    field(err, 'status'),
    field(err, 'statusCode'),
    field(field(err, 'response'), 'status'),
    field(body, 'code'),
    field(field(body, 'error'), 'code'),
  ];
  for (const v of candidates) {
    if (typeof v === 'number' && Number.isInteger(v) && v >= 100 && v <= 599) return v;
  }
  return undefined;
}

/** `code` at the top, in the body (`error.code`, OpenAI's `{ error: { code } }`), as a string or a number. */
function codesOf(e: unknown): string[] {
  const body = field(e, 'error');
  const out: string[] = [];
  for (const v of [field(e, 'code'), field(body, 'code'), field(field(body, 'error'), 'code'), field(body, 'type')]) {
    if (typeof v === 'string' && v.length > 0) out.push(v);
  }
  return out;
}

function textsOf(e: unknown): string[] {
  if (typeof e === 'string') return [e];
  const body = field(e, 'error');
  // OpenRouter wraps the upstream's words as "Provider returned error" with the real message under metadata.raw.
  const raw = field(field(body, 'metadata'), 'raw');
  const rawText = typeof raw === 'string' ? raw : raw !== undefined && raw !== null ? safeJson(raw) : undefined;
  const candidates = [field(e, 'message'), body, field(body, 'message'), field(field(body, 'error'), 'message'), rawText];
  return candidates.map(str).filter((s): s is string => s !== undefined);
}

function safeJson(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}

function namesOf(e: unknown): string[] {
  const name = str(field(e, 'name'));
  const ctor = str(field(field(e, 'constructor'), 'name'));
  return [name, ctor].filter((s): s is string => s !== undefined && s !== 'Object');
}

function primaryMessage(err: unknown, texts: readonly string[]): string {
  const first = texts[0];
  if (first !== undefined) return first;
  if (err === undefined || err === null) return 'unknown error';
  try {
    return typeof err === 'object' ? (JSON.stringify(err) ?? 'unknown error') : String(err);
  } catch {
    return 'unknown error';
  }
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > MAX_MESSAGE_CHARS ? `${one.slice(0, MAX_MESSAGE_CHARS - 1)}…` : one;
}

// ---- Retry-After ----------------------------------------------------------------------------------------

function header(headers: unknown, name: string): string | undefined {
  const get = field(headers, 'get');
  if (typeof get === 'function') {
    try {
      return str((get as (n: string) => unknown).call(headers, name));
    } catch {
      return undefined;
    }
  }
  if (headers === null || typeof headers !== 'object') return undefined;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return str(Array.isArray(v) ? v[0] : v);
  }
  return undefined;
}

function retryAfterOf(err: unknown, texts: readonly string[], nowMs: number | undefined): number | undefined {
  const direct = field(err, 'retryAfterMs');
  if (typeof direct === 'number' && Number.isFinite(direct)) return Math.max(0, direct);
  const headers = field(err, 'headers') ?? field(field(err, 'response'), 'headers');
  const ms = Number.parseFloat(header(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(ms)) return Math.max(0, ms);
  const after = header(headers, 'retry-after');
  if (after !== undefined) {
    const seconds = Number(after.trim());
    if (after.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(after);
    if (nowMs !== undefined && Number.isFinite(at)) return Math.max(0, at - nowMs);
  }
  // OpenAI words its rate limits "Please try again in 1.5s" / "in 20ms" even when the header is missing.
  for (const t of texts) {
    const m = /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(t);
    if (m?.[1] !== undefined) return Math.round(Number(m[1]) * (m[2]?.toLowerCase() === 'ms' ? 1 : 1000));
  }
  return undefined;
}
