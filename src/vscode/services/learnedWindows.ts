// Windows learned from providers' overflow errors, kept in globalState per endpoint + model (docs/compaction.md#overflow-recovery).
import * as z from '../../engine/zod.js';
import type { PartialLimits } from '../../engine/tokens/modelLimits.js';
import { limitsKey } from '../../node/learnedLimits.js';

/** The slice of a vscode.Memento this store needs (globalState in the extension, a Map in tests). */
export interface LimitsMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

const STATE_KEY = 'capsule.learnedWindows';
const MAX_ENTRIES = 200;
const count = z.number().check(z.int(), z.positive(), z.lte(1e9));
const StateSchema = z.record(z.string(), z.catch(z.optional(z.object({ contextWindow: count, maxOutputTokens: z.optional(count) })), undefined));
type State = Record<string, { contextWindow: number; maxOutputTokens?: number }>;

export class LearnedWindows {
  constructor(private readonly memento: LimitsMemento | undefined) {}

  #all(): State {
    const parsed = StateSchema.safeParse(this.memento?.get<unknown>(STATE_KEY));
    const out: State = {};
    if (parsed.success) for (const [k, v] of Object.entries(parsed.data)) if (v !== undefined) out[k] = v;
    return out;
  }

  get(endpoint: string, model: string): PartialLimits | undefined {
    return this.#all()[limitsKey(endpoint, model)];
  }

  async record(endpoint: string, model: string, limits: { readonly contextWindow: number; readonly maxOutputTokens: number }): Promise<void> {
    if (this.memento === undefined) return;
    const state = this.#all();
    state[limitsKey(endpoint, model)] = { contextWindow: limits.contextWindow, maxOutputTokens: limits.maxOutputTokens };
    const keys = Object.keys(state);
    for (const k of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete state[k];
    await this.memento.update(STATE_KEY, state);
  }
}
