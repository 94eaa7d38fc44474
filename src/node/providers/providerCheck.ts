// Checks an OpenAI-compatible endpoint when the user saves it (docs/behaviour.md#errors): its /models list (or a 1-token request), the model, the window.
import { classifyError } from '../../engine/provider/faults.js';
import { faultAdvice, faultLine, turnFaultOf, type TurnFault } from '../../engine/provider/turnFault.js';
import { modelInfoFromProviderModel } from '../../engine/tokens/modelLimits.js';
import { endpointHost } from './endpointHost.js';
import { catalogOf, type CatalogModel } from './modelCatalog.js';
import { createOpenAIClient } from './openaiModel.js';

/** A check answers while the user looks at the panel: a server that takes longer is reported as not answering. */
const CHECK_TIMEOUT_MS = 5_000;
const SHOWN_MODELS = 5;

export interface ProviderCheck {
  /** `ok`: it answers as an OpenAI-compatible API and knows the model; `warning`: it answers, but something is off; `error`: it does not. */
  readonly status: 'ok' | 'warning' | 'error';
  readonly endpoint: string;
  /** How it was checked: its model list, or (no /models route) a 1-token request. */
  readonly via: 'models' | 'request' | 'none';
  readonly models?: number;
  readonly modelListed?: boolean;
  /** The configured model's window as the server reports it. */
  readonly contextWindow?: number;
  readonly fault?: TurnFault;
  /** What it found, in words. */
  readonly summary: string;
  /** What to do about it, when something is off. */
  readonly hint?: string;
}

export interface CheckOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly model: string;
  readonly timeoutMs?: number;
}

const tokens = (n: number): string => `${n.toLocaleString('en-US')} tokens`;

function failed(endpoint: string, fault: TurnFault, via: ProviderCheck['via']): ProviderCheck {
  return { status: 'error', endpoint, via, fault, summary: `Not working: ${faultLine(fault)}.`, hint: faultAdvice(fault).hint };
}

/** A 200 that is not JSON is a web page or a proxy: the base URL points at the wrong thing. */
function notAnApi(endpoint: string, contentType: string, body: string): ProviderCheck {
  const fault = turnFaultOf(
    { kind: 'fatal', status: 404, message: /<html|<!doctype/i.test(body) ? body.slice(0, 2000) : `the answer was not JSON (${contentType})` },
    endpoint,
  );
  return {
    ...failed(endpoint, fault, 'models'),
    summary: `Not an OpenAI-compatible API: ${endpoint} answered /models with ${fault.message.startsWith('HTML page') ? `a web page (${fault.message})` : fault.message}.`,
  };
}

/** LM Studio's own API reports the window its OpenAI-compatible /v1/models leaves out; quietly nothing elsewhere. */
async function lmStudioWindow(baseUrl: string, model: string, signal: AbortSignal): Promise<number | undefined> {
  try {
    const url = new URL(baseUrl);
    if (!/\/v1\/?$/.test(url.pathname)) return undefined;
    url.pathname = `${url.pathname.replace(/\/v1\/?$/, '')}/api/v0/models/${encodeURIComponent(model)}`;
    url.search = '';
    const res = await fetch(url, { signal });
    if (!res.ok) return undefined;
    return modelInfoFromProviderModel(await res.json()).contextWindow;
  } catch {
    return undefined;
  }
}

function described(endpoint: string, model: string, list: readonly CatalogModel[], window: number | undefined): ProviderCheck {
  const entry = list.find((m) => m.id === model);
  const count = `${list.length} model${list.length === 1 ? '' : 's'}`;
  if (entry === undefined) {
    const some = list.slice(0, SHOWN_MODELS).map((m) => m.id);
    const others = some.length === 0 ? '' : ` (it lists ${some.join(', ')}${list.length > some.length ? ', …' : ''})`;
    return {
      status: 'warning',
      endpoint,
      via: 'models',
      models: list.length,
      modelListed: false,
      summary: `${endpoint} answers: ${count}, but "${model}" is not among them${others}.`,
      hint: 'Choose one of the models it lists, or correct the model id.',
    };
  }
  const w = window ?? entry.contextWindow;
  const base = { endpoint, via: 'models' as const, models: list.length, modelListed: true };
  if (w === undefined)
    return {
      ...base,
      status: 'warning',
      summary: `${endpoint} answers: ${count}, "${model}" among them; it does not report the context window.`,
      hint: 'Set the context window (capsule.model.contextWindow) so compaction starts in time; until then Capsule assumes one and says so.',
    };
  return {
    ...base,
    status: 'ok',
    contextWindow: w,
    summary: `${endpoint} answers: ${count}, "${model}" among them, context window ${tokens(w)} (reported by the server).`,
  };
}

/** Never throws: every failure is a result saying what failed. */
export async function checkProvider(o: CheckOptions): Promise<ProviderCheck> {
  const endpoint = endpointHost(o.baseUrl);
  const baseURL = o.baseUrl.trim() === '' ? 'https://api.openai.com/v1' : o.baseUrl.trim();
  const timeoutMs = o.timeoutMs ?? CHECK_TIMEOUT_MS;
  let client: ReturnType<typeof createOpenAIClient>;
  try {
    client = createOpenAIClient({ baseURL, apiKey: o.apiKey, timeoutMs });
  } catch (e) {
    return failed(endpoint, turnFaultOf(classifyError(e), endpoint), 'none');
  }
  try {
    const res = await client.models.list({ signal: AbortSignal.timeout(timeoutMs) }).asResponse();
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return notAnApi(endpoint, res.headers.get('content-type') ?? 'no content-type', text);
    }
    const list = catalogOf(body);
    const known = list.find((m) => m.id === o.model)?.contextWindow;
    const window = known ?? (list.some((m) => m.id === o.model) ? await lmStudioWindow(baseURL, o.model, AbortSignal.timeout(timeoutMs)) : undefined);
    return described(endpoint, o.model, list, window);
  } catch (e) {
    const fault = turnFaultOf(classifyError(e), endpoint);
    // No /models route (some proxies): a 1-token request says whether the endpoint and the model work.
    if (fault.status !== 404 || fault.message.startsWith('HTML page')) return failed(endpoint, fault, 'models');
  }
  try {
    await client.chat.completions.create(
      { model: o.model, messages: [{ role: 'user', content: 'Reply with OK.' }], max_tokens: 1, stream: false },
      { signal: AbortSignal.timeout(timeoutMs) },
    );
    return {
      status: 'warning',
      endpoint,
      via: 'request',
      summary: `${endpoint} has no model list, but "${o.model}" answered a 1-token request; the context window is not reported.`,
      hint: 'Set the context window (capsule.model.contextWindow) so compaction starts in time.',
    };
  } catch (e) {
    return failed(endpoint, turnFaultOf(classifyError(e), endpoint), 'request');
  }
}
