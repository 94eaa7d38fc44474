// Asks the server for a model's context window (OpenAI-compatible /models, Ollama /api/show, LM Studio /api/v0/models), once per endpoint + model.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from '../../engine/zod.js';
import { modelInfoFromProviderModel } from '../../engine/tokens/modelLimits.js';
import { catalogOf } from './modelCatalog.js';
import { cliLimitsPath, limitsKey } from '../learnedLimits.js';

/** Where a server-stated window came from, kept with it and shown with it. */
export type ServerWindowSource = 'openai_models' | 'openrouter_models' | 'ollama_show' | 'lmstudio_models';

export interface ServerWindow {
  readonly contextWindow: number;
  readonly maxOutputTokens?: number;
  readonly source: ServerWindowSource;
}

/** How each source reads in a status line, e.g. "window 12,000 tokens (stated by the server's /v1/models)". */
export const SERVER_WINDOW_SOURCE_TEXT: Readonly<Record<ServerWindowSource, string>> = {
  openai_models: "the server's /v1/models",
  openrouter_models: "OpenRouter's /models",
  ollama_show: "Ollama's /api/show",
  lmstudio_models: "LM Studio's /api/v0/models",
};

/** A model list is small: a server that takes longer is not going to answer, and a turn must not wait for it. */
const QUERY_TIMEOUT_MS = 10_000;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Fetch = typeof fetch;

async function getJson(fetchImpl: Fetch, url: string, init: RequestInit): Promise<unknown> {
  try {
    const res = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(QUERY_TIMEOUT_MS) });
    if (!res.ok) return undefined;
    return (await res.json()) as unknown;
  } catch {
    return undefined; // not this kind of server, or not reachable: the next shape is tried, then the table
  }
}

/** `http://host:11434/v1` → `http://host:11434`: the native APIs of Ollama and LM Studio live beside /v1. */
export function serverOrigin(baseURL: string): string {
  return baseURL.trim().replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** Ollama's /api/show: `num_ctx` in the parameters (the window in use) wins over the model's `*.context_length`. */
export function ollamaWindow(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  const params = typeof body['parameters'] === 'string' ? body['parameters'] : '';
  const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(params)?.[1];
  if (numCtx !== undefined && Number(numCtx) > 0) return Number(numCtx);
  const info = body['model_info'];
  if (!isRecord(info)) return undefined;
  for (const [key, value] of Object.entries(info)) {
    if (key.endsWith('.context_length') && typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  }
  return undefined;
}

/**
 * The window the server states for `model`, or undefined when no shape answers with one. Tried in order:
 * `GET {base}/models` (OpenAI-compatible: context_length, max_model_len, context_window, OpenRouter's top_provider),
 * `POST {origin}/api/show` (Ollama), `GET {origin}/api/v0/models/{model}` (LM Studio: loaded, else max context).
 */
export async function queryServerWindow(baseURL: string, apiKey: string, model: string, fetchImpl: Fetch = fetch): Promise<ServerWindow | undefined> {
  const base = baseURL.trim().replace(/\/+$/, '');
  const headers: Record<string, string> = apiKey === '' ? {} : { authorization: `Bearer ${apiKey}` };
  const listed = await getJson(fetchImpl, `${base}/models`, { headers });
  const raw = (isRecord(listed) && Array.isArray(listed['data']) ? listed['data'] : Array.isArray(listed) ? listed : []).find(
    (m: unknown) => isRecord(m) && m['id'] === model,
  );
  const entry = catalogOf(listed).find((m) => m.id === model);
  if (entry?.contextWindow !== undefined) {
    const source: ServerWindowSource = isRecord(raw) && isRecord(raw['top_provider']) ? 'openrouter_models' : 'openai_models';
    return { contextWindow: entry.contextWindow, ...(entry.maxOutputTokens === undefined ? {} : { maxOutputTokens: entry.maxOutputTokens }), source };
  }
  const origin = serverOrigin(baseURL);
  const shown = await getJson(fetchImpl, `${origin}/api/show`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ model }),
  });
  const ollama = ollamaWindow(shown);
  if (ollama !== undefined) return { contextWindow: ollama, source: 'ollama_show' };
  const lm = modelInfoFromProviderModel(await getJson(fetchImpl, `${origin}/api/v0/models/${encodeURIComponent(model)}`, { headers }));
  if (lm.contextWindow !== undefined)
    return { contextWindow: lm.contextWindow, ...(lm.maxOutputTokens === undefined ? {} : { maxOutputTokens: lm.maxOutputTokens }), source: 'lmstudio_models' };
  return undefined;
}

const count = z.number().check(z.int(), z.positive(), z.lte(1e9));
const EntrySchema = z.object({
  contextWindow: z.optional(count),
  maxOutputTokens: z.optional(count),
  source: z.optional(z.enum(['openai_models', 'openrouter_models', 'ollama_show', 'lmstudio_models'])),
  askedAt: z.string(),
});
const FileSchema = z.object({ version: z.literal(1), windows: z.record(z.string(), z.catch(z.optional(EntrySchema), undefined)) });
type Entry = z.infer<typeof EntrySchema>;
const MAX_ENTRIES = 500;

/** Beside the learned-limits file: `server-windows.json` in the same folder. */
export function serverWindowsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(cliLimitsPath(env)), 'server-windows.json');
}

/**
 * What each endpoint + model answered, kept like learned limits so the server is asked once, not every run.
 * A server that stated nothing is remembered too (no window), so it is not asked again either.
 */
export class ServerWindowsFile {
  constructor(readonly path: string) {}

  private async all(): Promise<Record<string, Entry>> {
    try {
      const parsed = FileSchema.safeParse(JSON.parse(await readFile(this.path, 'utf8')) as unknown);
      if (!parsed.success) return {};
      const out: Record<string, Entry> = {};
      for (const [k, v] of Object.entries(parsed.data.windows)) if (v !== undefined) out[k] = v;
      return out;
    } catch {
      return {};
    }
  }

  /** undefined: never asked; null: asked, the server stated no window. */
  async get(baseURL: string, model: string): Promise<ServerWindow | null | undefined> {
    const e = (await this.all())[limitsKey(baseURL, model)];
    if (e === undefined) return undefined;
    if (e.contextWindow === undefined || e.source === undefined) return null;
    return { contextWindow: e.contextWindow, ...(e.maxOutputTokens === undefined ? {} : { maxOutputTokens: e.maxOutputTokens }), source: e.source };
  }

  /** Where a window of this size for this model was stated, on any endpoint (for commands that know no endpoint). */
  async sourceOf(model: string, contextWindow: number): Promise<ServerWindowSource | undefined> {
    for (const [key, e] of Object.entries(await this.all())) {
      if (key.endsWith(` ${model.trim()}`) && e.contextWindow === contextWindow && e.source !== undefined) return e.source;
    }
    return undefined;
  }

  async record(baseURL: string, model: string, w: ServerWindow | undefined, now = new Date()): Promise<void> {
    const map = await this.all();
    map[limitsKey(baseURL, model)] = w === undefined ? { askedAt: now.toISOString() } : { ...w, askedAt: now.toISOString() };
    const keys = Object.keys(map);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete map[k];
    await mkdir(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify({ version: 1, windows: map }, null, 2)}\n`, 'utf8');
    await rename(tmp, this.path);
  }
}

/** The window the server states, asked once per endpoint + model and remembered; never throws. */
export async function serverWindowOnce(
  file: ServerWindowsFile,
  baseURL: string,
  apiKey: string,
  model: string,
  fetchImpl: Fetch = fetch,
): Promise<ServerWindow | undefined> {
  const known = await file.get(baseURL, model);
  if (known !== undefined) return known ?? undefined;
  const asked = await queryServerWindow(baseURL, apiKey, model, fetchImpl);
  await file.record(baseURL, model, asked).catch(() => undefined); // a read-only config folder only means asking again next run
  return asked;
}
