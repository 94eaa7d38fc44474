// Reads an OpenAI-compatible server's /models list with each model's context window and output limit when reported.
import { modelInfoFromProviderModel } from '../../engine/tokens/modelLimits.js';
import { abortError, createOpenAIClient } from './openaiModel.js';

export interface CatalogModel {
  readonly id: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
}

/** A model list is small; a server that takes longer than this is not going to answer. */
const CATALOG_TIMEOUT_MS = 30_000;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One raw /models entry; entries without a string id are skipped rather than failing the list. */
function catalogModelOf(raw: unknown): CatalogModel | undefined {
  if (!isRecord(raw) || typeof raw['id'] !== 'string' || raw['id'] === '') return undefined;
  return { id: raw['id'], ...modelInfoFromProviderModel(raw) };
}

/** The models of a /models body: `{data: [...]}` (OpenAI), `{models: [...]}` or a bare array (some proxies). */
export function catalogOf(body: unknown): CatalogModel[] {
  const list = Array.isArray(body) ? body : isRecord(body) ? (body['data'] ?? body['models']) : undefined;
  const out: CatalogModel[] = [];
  for (const item of Array.isArray(list) ? list : []) {
    const model = catalogModelOf(item);
    if (model) out.push(model);
  }
  return out;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  // The client's APIError message already starts with the status ("401 Incorrect API key provided").
  const status = 'status' in e && typeof e.status === 'number' && !e.message.startsWith(String(e.status)) ? `HTTP ${e.status}: ` : '';
  const causes = causeMessages(e);
  return `${status}${e.message}${causes.length > 0 ? ` (${causes.join(': ')})` : ''}`;
}

/** "Connection error." alone says nothing; the reason (ECONNREFUSED, ENOTFOUND, bad port) sits a few causes down. */
function causeMessages(e: Error): string[] {
  const out: string[] = [];
  let c: unknown = e.cause;
  for (let depth = 0; depth < 4 && c instanceof Error; depth++) {
    const inner: Error = c instanceof AggregateError && c.errors[0] instanceof Error ? c.errors[0] : c;
    const code = 'code' in inner && typeof inner.code === 'string' ? inner.code : '';
    const text = inner.message !== '' ? inner.message : code;
    if (text !== '' && !out.includes(text)) out.push(text);
    c = inner.cause;
  }
  return out;
}

/**
 * Lists the models of the server at `baseURL` (the `/v1` root). Odd JSON shapes never throw: missing limits
 * are left out, entries without an id are skipped. Network and HTTP failures, and a body that is not JSON at
 * all (a wrong URL serving a web page), become one clear line, with the original error kept as `cause`.
 */
export async function fetchModelCatalog(baseURL: string, apiKey: string, signal?: AbortSignal): Promise<CatalogModel[]> {
  const client = createOpenAIClient({ baseURL, apiKey, timeoutMs: CATALOG_TIMEOUT_MS });
  try {
    // The raw response rather than the typed page: the page crashes on a `null` body and drops bare arrays,
    // while HTTP errors still arrive as the client's APIError.
    const response = await client.models.list(signal ? { signal } : undefined).asResponse();
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      throw new Error(`the answer was not JSON (${response.headers.get('content-type') ?? 'no content-type'})`);
    }
    return catalogOf(body);
  } catch (e) {
    if (signal?.aborted) throw abortError();
    throw new Error(oneLine(`Could not list models at ${baseURL}: ${describe(e)}`), { cause: e });
  }
}
