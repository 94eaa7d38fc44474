// A failed model request as the user reads it (docs/behaviour.md#errors): what failed, where, the provider's words as data, what to do.
import type { TurnFault } from '../transcript/schema.js';
import type { FaultInfo } from './faults.js';

export type { TurnFault } from '../transcript/schema.js';
export type FaultCategory = TurnFault['category'];

/** Which setting fixes it: the error card's "Open settings" goes there. */
type SettingsTarget = 'apiKey' | 'model' | 'baseUrl';

export interface FaultAdvice {
  /** One sentence: what to do. */
  readonly hint: string;
  readonly settings?: SettingsTarget;
}

const MAX_MESSAGE = 400;
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const QUOTA_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached', 'billing_not_active']);
const HTML = /<!doctype html|<html[\s>]|<head[\s>]|<body[\s>]|<title>/i;
/** Key-shaped tokens (OpenAI, Anthropic, OpenRouter, Groq…): a provider sometimes echoes part of the key it refused. */
const KEY_LIKE = /\b(sk|pk|rk|gsk|xai|key)[-_][A-Za-z0-9*_\-.]{6,}/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=*-]{6,}/gi;
/** A URL keeps its origin and path; the query (Azure's api-version, a key= parameter) never reaches the card. */
const URL_QUERY = /(https?:\/\/[^\s?#"'<>]+)[?#][^\s"'<>]*/gi;

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}

/** An HTML error page (a proxy's 502, a web server's 404) says what it is in its title; the markup is noise. */
function fromHtml(s: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(s)?.[1];
  const h1 = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(s)?.[1];
  const strip = (x: string): string =>
    decodeEntities(x.replace(/<[^>]*>/g, ' '))
      .replace(/\s+/g, ' ')
      .trim();
  const words = strip(title ?? h1 ?? s.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' '));
  return `HTML page: ${words === '' ? '(no title)' : words}`;
}

/** Removes what must never be shown (keys, URL queries) from a provider's message. */
function redactMessage(s: string): string {
  return s
    .replace(URL_QUERY, '$1?…')
    .replace(BEARER, '$1 …')
    .replace(KEY_LIKE, (m, prefix: string) => `${prefix}${m.charAt(prefix.length)}…`);
}

/** The provider's words, one line: without the status the client puts first, an HTML page as its title, keys and queries removed. */
export function providerMessage(raw: string, status?: number): string {
  let s = raw.trim();
  if (HTML.test(s)) s = fromHtml(s);
  if (status !== undefined) {
    s = s.replace(new RegExp(`^${status}\\s+`), '');
    if (/^status code \(no body\)$/i.test(s)) s = '(no body)';
  }
  s = redactMessage(s.replace(/\s+/g, ' ').trim());
  return s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE - 1)}…` : s === '' ? '(no message)' : s;
}

function categoryOf(f: FaultInfo, message: string, html: boolean): FaultCategory {
  const code = f.code ?? '';
  if (f.kind === 'overflow') return 'overflow';
  if (QUOTA_CODES.has(code)) return 'quota';
  const s = f.status;
  if (s === 401) return 'auth';
  if (s === 403) return 'forbidden';
  if (s === 404) return !html && (code === 'model_not_found' || /\bmodel\b/i.test(message)) ? 'model_not_found' : 'not_found';
  if (s === 429) return 'rate_limit';
  if (s === 408 || s === 504 || TIMEOUT_CODES.has(code)) return 'timeout';
  if (s !== undefined && s >= 500) return 'server';
  if (s !== undefined && s >= 400) return 'bad_request';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (DNS_CODES.has(code)) return 'dns';
  if (/\b(timed out|timeout|no response from the model)\b/i.test(f.message)) return 'timeout';
  if (f.kind === 'transient') return 'network';
  return 'other';
}

/** The error card's facts from a classified fault; `endpoint` is the host[:port] the request went to. */
export function turnFaultOf(f: FaultInfo, endpoint?: string): TurnFault {
  const html = HTML.test(f.message);
  const said = providerMessage(f.message, f.status);
  // "Connection error." alone hides the reason the network layer gave (ECONNREFUSED, ENOTFOUND).
  const message = f.status === undefined && f.code !== undefined && !said.includes(f.code) ? `${said} (${f.code})` : said;
  return {
    category: categoryOf(f, message, html),
    ...(f.status === undefined ? {} : { status: f.status }),
    ...(f.code === undefined ? {} : { code: f.code.slice(0, 200) }),
    message,
    ...(endpoint === undefined || endpoint === '' ? {} : { endpoint: endpoint.slice(0, 300) }),
  };
}

/** The hint for a refused connection, exported so every test tier checks the one copy. */
export function nothingListeningHint(where: string): string {
  return `Nothing is listening at ${where}: start the server (Ollama, LM Studio, vLLM…) or correct the base URL.`;
}

/** What to do about it, and which setting to open when a setting is the likely cause. */
export function faultAdvice(f: TurnFault): FaultAdvice {
  const where = f.endpoint ?? 'the server';
  switch (f.category) {
    case 'auth':
      return { hint: `${where} refused the API key: enter the key for this endpoint.`, settings: 'apiKey' };
    case 'forbidden':
      return { hint: `${where} does not allow this key to use the model: check the key's permissions, or choose another model.`, settings: 'apiKey' };
    case 'model_not_found':
      return { hint: `${where} does not serve this model: choose a model it lists, or correct the model id.`, settings: 'model' };
    case 'not_found':
      return { hint: `Nothing answers at this path on ${where}: check the base URL (OpenAI-compatible servers usually end in /v1).`, settings: 'baseUrl' };
    case 'rate_limit':
      return { hint: `${where} is limiting requests: wait a moment, then Retry.` };
    case 'quota':
      return { hint: `The account at ${where} is out of credit or quota: Retry only helps once it is topped up.` };
    case 'server':
      return { hint: `${where} failed while answering: Retry; if it keeps failing, look at the server's log.` };
    case 'connection_refused':
      return { hint: nothingListeningHint(where), settings: 'baseUrl' };
    case 'dns':
      return { hint: `The host name ${where} could not be found: check the base URL.`, settings: 'baseUrl' };
    case 'timeout':
      return { hint: `${where} did not answer in time: Retry, or check that the server is running and not overloaded.` };
    case 'network':
      return { hint: `The connection to ${where} failed: check the network or proxy, then Retry.`, settings: 'baseUrl' };
    case 'bad_request':
      return { hint: `${where} rejected the request; its message says why.` };
    case 'overflow':
      return { hint: "The request did not fit the model's context window: compact, rewind, or choose a model with a larger window." };
    case 'other':
      return { hint: 'Retry; if it fails again, the log (Output › Capsule) has the details.' };
  }
}

/** The facts in one line: `127.0.0.1:8080 · HTTP 500 · Internal Server Error` (the CLI prints it; the card shows the same parts). */
export function faultLine(f: TurnFault): string {
  const parts = [f.endpoint ?? 'the model', f.status === undefined ? (f.code ?? CATEGORY_WORDS[f.category]) : `HTTP ${f.status}`, f.message];
  return parts.join(' · ');
}

/** A title for the card: what kind of failure, in words. */
export const CATEGORY_WORDS: Readonly<Record<FaultCategory, string>> = {
  auth: 'API key refused',
  forbidden: 'Access denied',
  model_not_found: 'Model not found',
  not_found: 'Endpoint not found',
  rate_limit: 'Rate limited',
  quota: 'Out of quota',
  server: 'Server error',
  connection_refused: 'Connection refused',
  dns: 'Host not found',
  timeout: 'No answer in time',
  network: 'Connection failed',
  bad_request: 'Request rejected',
  overflow: 'Context overflow',
  other: 'Request failed',
};
