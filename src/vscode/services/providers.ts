// Which model the chat talks to: the configured provider resolved to a ModelConfig, the picker's model list, the setup panel's state.
import { modelTakesImages } from '../../engine/transcript/images.js';
import { LIMITS } from '../../protocol/limits.js';
import { createHash } from 'node:crypto';
import type { Logger } from '../../engine/ports.js';
import { resolveSettings } from '../../engine/config.js';
import { limitsOf } from '../../engine/tokens/tokenLimits.js';
import { resolveModelInfo, type ModelInfo, type PartialLimits } from '../../engine/tokens/modelLimits.js';
import type { ModelConfig } from '../../node/agentSession.js';
import type { ChatFacade } from '../../node/chatFacade.js';
import { endpointHost } from '../../node/providers/endpointHost.js';
import { fetchModelCatalog, type CatalogModel } from '../../node/providers/modelCatalog.js';
import { checkProvider, type ProviderCheck } from '../../node/providers/providerCheck.js';
import type { ModelOption, ProviderChoice, SetupState } from '../../protocol/messages.js';
import { errorMessage } from '../base/log.js';
import { findLmModel, listLmModels, lmModelInfo, VsCodeLmChatModel, type LmModelSummary } from '../providers/lmModel.js';
import { LearnedWindows } from './learnedWindows.js';
import { endpointOf, type ApiKeys } from './secrets.js';
import type { HostSettings } from './settings.js';

/** How a /models answer says the API key is missing or wrong. */
const AUTH_REFUSED = /\b(401|403)\b|incorrect api key|invalid api key|unauthori[sz]ed/i;

/** Picker ids of VS Code language models carry this prefix, so `gpt-4o` from Copilot and from an endpoint stay apart. */
export const LM_OPTION_PREFIX = 'lm:';
/** A /models list that takes longer than this is left out of the picker rather than holding it up. */
const CATALOG_TIMEOUT_MS = 10_000;
const MAX_OPTIONS = 500;

/** The picker id of the model in use: the agent's when it runs, else the settings'. */
export function pickerIdOf(agent: ChatFacade | undefined, s: Pick<HostSettings, 'providerKind' | 'modelId'>): string {
  const chat = agent?.model;
  const lm = chat ? chat.provider.startsWith('vscode-lm') : s.providerKind === 'vscode-lm';
  const id = chat ? chat.model : s.modelId;
  return (lm ? `${LM_OPTION_PREFIX}${id}` : id).slice(0, LIMITS.id);
}

export type Resolution =
  | {
      readonly ok: true;
      /** Changes whenever the model, its limits, the endpoint or the key change: a different key means a switch. */
      readonly key: string;
      readonly model: ModelConfig;
      readonly info: ModelInfo;
      /** The picker id of this model. */
      readonly optionId: string;
    }
  | { readonly ok: false; readonly message: string };

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Each model's limits with the settings resolved for its own window, so derived values are that model's (docs/compaction.md). */
function option(id: string, label: string, provider: ModelOption['provider'], info: ModelInfo, s: HostSettings, images?: boolean): ModelOption {
  const resolved = resolveSettings({ raw: s.raw, env: {}, model: { contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens } });
  const limits = limitsOf(info, resolved.settings);
  return {
    id: id.slice(0, LIMITS.id),
    label: label.slice(0, LIMITS.id),
    provider,
    contextWindow: info.contextWindow,
    maxOutputTokens: info.maxOutputTokens,
    hardLimit: Math.max(0, limits.hardLimit),
    softLimit: Math.max(0, limits.softLimit),
    windowSource: info.source,
    hardDerived: resolved.derived.includes('safetyReserveTokens'),
    softDerived: resolved.derived.includes('minTokensForAutoCompact'),
    // A VS Code model says itself (lmTakesImages); an endpoint's model is known by its name (docs/user/chat.md#images).
    images: images ?? (provider === 'openai' && modelTakesImages(id)),
  };
}

export class Providers {
  #catalog: { readonly endpoint: string; readonly keyHash: string; readonly models: readonly CatalogModel[] } | undefined;
  #lm: readonly LmModelSummary[] = [];
  /** Why the endpoint's model list could not be read (a wrong URL or key shows up here first). */
  #catalogError: string | undefined;
  /** The last check of a saved endpoint, for the settings it was made with. */
  #check: { readonly key: string; readonly view: NonNullable<SetupState['check']> } | undefined;

  readonly #learned: LearnedWindows;

  constructor(
    private readonly keys: ApiKeys,
    private readonly log: Logger,
    learned?: LearnedWindows,
  ) {
    this.#learned = learned ?? new LearnedWindows(undefined);
  }

  /** Remembers the window an overflow error of this endpoint stated for a model; later chats start from it. */
  async recordLearned(s: HostSettings, model: string, limits: { readonly contextWindow: number; readonly maxOutputTokens: number }): Promise<void> {
    if (s.providerKind !== 'openai') return;
    await this.#learned.record(endpointOf(s.baseUrl), model, limits);
  }

  get lmModels(): readonly LmModelSummary[] {
    return this.#lm;
  }

  /** Re-reads VS Code's language models (after `vscode.lm.onDidChangeChatModels`); none when the API is unavailable. */
  async refreshLm(): Promise<void> {
    try {
      this.#lm = await listLmModels();
    } catch (err) {
      this.#lm = [];
      this.log.log('debug', 'No VS Code language models', { error: errorMessage(err) });
    }
  }

  /** Best effort: the endpoint's /models list with its limits; a failure leaves only the configured model in the picker. */
  async refreshCatalog(s: HostSettings): Promise<void> {
    const endpoint = endpointOf(s.baseUrl);
    const key = await this.keys.get(s.baseUrl);
    if (s.baseUrl === '' && key === '') {
      this.#catalog = undefined;
      this.#catalogError = undefined;
      return;
    }
    const keyHash = digest(key);
    if (this.#catalog?.endpoint === endpoint && this.#catalog.keyHash === keyHash) return;
    try {
      const models = await fetchModelCatalog(endpoint, key, AbortSignal.timeout(CATALOG_TIMEOUT_MS));
      this.#catalog = { endpoint, keyHash, models };
      this.#catalogError = undefined;
    } catch (err) {
      this.#catalog = { endpoint, keyHash, models: [] };
      this.#catalogError = errorMessage(err);
      this.log.log('warn', this.#catalogError);
    }
  }

  /** Forget the cached list so the next refresh asks the endpoint again (after a new key or URL). */
  invalidateCatalog(): void {
    this.#catalog = undefined;
  }

  #catalogLimits(s: HostSettings, id: string): PartialLimits {
    const entry = this.#catalog?.endpoint === endpointOf(s.baseUrl) ? this.#catalog.models.find((m) => m.id === id) : undefined;
    return {
      ...(entry?.contextWindow === undefined ? {} : { contextWindow: entry.contextWindow }),
      ...(entry?.maxOutputTokens === undefined ? {} : { maxOutputTokens: entry.maxOutputTokens }),
    };
  }

  /** The model the settings describe, ready for AgentSession; or why there is none yet (the setup panel says it). */
  async resolve(s: HostSettings): Promise<Resolution> {
    if (s.providerKind === 'vscode-lm') {
      const lm = await findLmModel(s.modelId).catch(() => undefined);
      if (!lm)
        return { ok: false, message: `The VS Code language model "${s.modelId}" is not available. Choose another model or an OpenAI-compatible endpoint.` };
      const info = lmModelInfo(lm, s.modelOverride);
      const provider = { contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens };
      return {
        ok: true,
        key: `lm|${lm.vendor}|${lm.id}|${info.contextWindow}|${info.maxOutputTokens}`,
        model: { chat: new VsCodeLmChatModel(lm), provider, override: s.modelOverride },
        info,
        optionId: `${LM_OPTION_PREFIX}${lm.id}`,
      };
    }
    const endpoint = endpointOf(s.baseUrl);
    const apiKey = await this.keys.get(s.baseUrl);
    if (s.baseUrl === '' && apiKey === '') {
      return {
        ok: false,
        message: 'Enter an OpenAI API key, or the base URL of an OpenAI-compatible server (Ollama, LM Studio, vLLM…), or pick a VS Code language model.',
      };
    }
    const provider = this.#catalogLimits(s, s.modelId);
    const learned = this.#learned.get(endpoint, s.modelId);
    const info = resolveModelInfo(s.modelId, { provider, learned, override: s.modelOverride });
    return {
      ok: true,
      key: `openai|${endpoint}|${s.modelId}|${digest(apiKey)}|${info.contextWindow}|${info.maxOutputTokens}|${s.sendCacheKey ? 'key' : 'nokey'}`,
      model: {
        chat: { baseURL: endpoint, apiKey, model: s.modelId, provider: s.provider, sendCacheKey: s.sendCacheKey },
        provider,
        override: s.modelOverride,
        ...(learned === undefined ? {} : { learned }),
      },
      info,
      optionId: s.modelId,
    };
  }

  /** The picker: the endpoint's models (the configured one first) and VS Code's language models, each with its limits. */
  modelOptions(s: HostSettings): ModelOption[] {
    const out: ModelOption[] = [];
    const seen = new Set<string>();
    const add = (o: ModelOption): void => {
      if (seen.has(o.id) || out.length >= MAX_OPTIONS) return;
      seen.add(o.id);
      out.push(o);
    };
    const endpointConfigured = s.baseUrl !== '' || this.#catalog !== undefined;
    if (s.providerKind === 'openai' || endpointConfigured) {
      const own = s.providerKind === 'openai' ? [s.modelId] : [];
      for (const id of [...own, ...(this.#catalog?.models.map((m) => m.id) ?? [])]) {
        const limits = this.#catalogLimits(s, id);
        const override = id === s.modelId && s.providerKind === 'openai' ? s.modelOverride : {};
        add(option(id, id, 'openai', resolveModelInfo(id, { provider: limits, learned: this.#learned.get(endpointOf(s.baseUrl), id), override }), s));
      }
    }
    for (const m of this.#lm) {
      const override = s.providerKind === 'vscode-lm' && m.id === s.modelId ? s.modelOverride : undefined;
      add(option(`${LM_OPTION_PREFIX}${m.id}`, `${m.name} (${m.vendor})`, 'lm', lmModelInfo(m, override), s, m.images));
    }
    return out;
  }

  async #checkKey(s: HostSettings): Promise<string> {
    return `${endpointOf(s.baseUrl)}|${s.modelId}|${digest(await this.keys.get(s.baseUrl))}`;
  }

  /** A new endpoint or model was saved: the last check spoke of another. */
  forgetCheck(): void {
    this.#check = undefined;
  }

  /** Checks the configured endpoint (the setup panel's Save); `progress` runs once the "Checking…" line can be shown. */
  async check(s: HostSettings, progress: () => Promise<void>): Promise<ProviderCheck | undefined> {
    if (s.providerKind !== 'openai') return undefined;
    const key = await this.#checkKey(s);
    this.#check = { key, view: { status: 'checking', summary: `Checking ${endpointHost(s.baseUrl)}…` } };
    await progress();
    const r = await checkProvider({ baseUrl: s.baseUrl, apiKey: await this.keys.get(s.baseUrl), model: s.modelId });
    this.#check = {
      key,
      view: { status: r.status, summary: r.summary.slice(0, LIMITS.line), ...(r.hint === undefined ? {} : { hint: r.hint.slice(0, LIMITS.line) }) },
    };
    this.log.log(r.status === 'ok' ? 'info' : 'warn', `Provider check: ${r.summary}${r.hint === undefined ? '' : ` ${r.hint}`}`);
    return r;
  }

  /** What the setup panel shows; `problem` is why no provider works (then the panel opens by itself). */
  async setupState(s: HostSettings, problem: string | undefined): Promise<SetupState> {
    const check = s.providerKind === 'openai' && this.#check !== undefined && this.#check.key === (await this.#checkKey(s)) ? this.#check.view : undefined;
    const message = problem ?? (s.providerKind === 'openai' ? this.#catalogError : undefined);
    const provider: ProviderChoice =
      s.providerKind === 'vscode-lm'
        ? { kind: 'lm', modelId: s.modelId }
        : { kind: 'openai', baseUrl: s.baseUrl === '' || /^https?:\/\/\S+$/.test(s.baseUrl) ? s.baseUrl : '', model: s.modelId };
    // A keyless endpoint is fine (local servers need none), but one that refuses the key needs the user now.
    const refused = s.providerKind === 'openai' && AUTH_REFUSED.test(this.#catalogError ?? '');
    return {
      required: problem !== undefined || refused,
      lmModels: this.#lm
        .slice(0, LIMITS.label)
        .map((m) => ({ id: m.id, label: m.name, vendor: m.vendor, ...(m.maxInputTokens > 0 ? { maxInputTokens: m.maxInputTokens } : {}) })),
      provider,
      hasApiKey: s.providerKind === 'openai' ? await this.keys.has(s.baseUrl) : false,
      ...(message === undefined ? {} : { message: message.slice(0, LIMITS.line) }),
      ...(check === undefined ? {} : { check }),
    };
  }
}
