// Error bodies in the shape the openai client reads: vLLM's top-level `{"object":"error"}` and array-wrapped bodies become `{"error": …}`.
import { parseJsonText } from '../../engine/jsonText.js';
/**
 * The openai client only reads `body.error`; anything else becomes "400 status code (no body)" and the provider's
 * words (often the real window) are lost. This fetch wrapper rewrites failed responses' bodies so they reach the
 * engine: `[{"error":{…}}]` (Gemini-compatible gateways) is unwrapped, a top-level `{"object":"error","message":…}`
 * (older vLLM) or `{"message":…}` / `{"detail":…}` / a plain string becomes `{"error":{"message":…}}`. Successful
 * responses and bodies that already have `error` pass through untouched.
 */
type Fetch = typeof fetch;

const MAX_BODY_CHARS = 64 * 1024;

function messageOf(o: Record<string, unknown>): string | undefined {
  for (const key of ['message', 'detail', 'error_message', 'msg']) {
    const v = o[key];
    if (typeof v === 'string' && v !== '') return v;
    if (v !== null && typeof v === 'object') return JSON.stringify(v); // FastAPI's 422 `detail` is a list of objects
  }
  return undefined;
}

/** The body the client can read, or undefined when the original is already fine (or unreadable as such). */
export function normalizeErrorBody(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = parseJsonText(text);
  } catch {
    const plain = text.trim();
    // A non-JSON body (a proxy's text/plain or an HTML page) still carries words worth classifying.
    return plain === '' ? undefined : JSON.stringify({ error: { message: plain.slice(0, MAX_BODY_CHARS) } });
  }
  const wrapped = Array.isArray(parsed);
  if (Array.isArray(parsed)) parsed = parsed[0];
  if (parsed === null || typeof parsed !== 'object') {
    return typeof parsed === 'string' && parsed !== '' ? JSON.stringify({ error: { message: parsed } }) : undefined;
  }
  const o = parsed as Record<string, unknown>;
  if (o.error !== undefined && o.error !== null) {
    // A string `error` (LM Studio) is kept as the message; an object one is what the client expects.
    if (typeof o.error === 'string') return JSON.stringify({ error: { message: o.error } });
    return wrapped ? JSON.stringify(o) : undefined;
  }
  const message = messageOf(o);
  if (message === undefined) return undefined;
  return JSON.stringify({ error: { ...o, message } });
}

/** Wraps fetch so failed responses carry `{"error": …}` bodies; everything else is the original response. */
export function errorBodyFetch(inner: Fetch = fetch): Fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (res.ok) return res;
    let text: string;
    try {
      text = await res.clone().text();
    } catch {
      return res;
    }
    const body = normalizeErrorBody(text);
    if (body === undefined) return res;
    const headers = new Headers(res.headers);
    headers.set('content-type', 'application/json');
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(body, { status: res.status, statusText: res.statusText, headers });
  };
}
