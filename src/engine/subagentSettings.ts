// The `capsule.subagents.*` settings (docs/subagents.md): defaults and one schema per field, as package.json declares them.
import * as z from './zod.js';

export interface SubagentSettings {
  /** Another model for children (same provider); '' = the parent's model. */
  readonly model: string;
  /** Children of one batch that run at the same time; further ones wait for a free slot. */
  readonly maxConcurrent: number;
  /** Model requests one child may make before it is stopped (its own per-turn limit). */
  readonly maxRequests: number;
}

export const DEFAULT_SUBAGENT_SETTINGS: SubagentSettings = { model: '', maxConcurrent: 3, maxRequests: 50 };

export const SUBAGENT_SETTING_SCHEMAS: { readonly [K in keyof SubagentSettings]: z.ZodMiniType<SubagentSettings[K]> } = {
  model: z.string().check(z.maxLength(200)),
  maxConcurrent: z.number().check(z.int(), z.gte(1), z.lte(16)),
  maxRequests: z.number().check(z.int(), z.gte(1), z.lte(100_000)),
};

/** Raw values (unset or invalid ones fall back to their defaults, each alone) → settings, plus one line per bad value. */
export function resolveSubagentSettings(raw: Readonly<Record<string, unknown>>): { readonly settings: SubagentSettings; readonly errors: readonly string[] } {
  const errors: string[] = [];
  const pick = <K extends keyof SubagentSettings>(key: K): SubagentSettings[K] => {
    const value = raw[key];
    if (value === undefined) return DEFAULT_SUBAGENT_SETTINGS[key];
    const parsed = SUBAGENT_SETTING_SCHEMAS[key].safeParse(value);
    if (parsed.success) return parsed.data;
    errors.push(
      `capsule.subagents.${key} (${JSON.stringify(value)}) is invalid: ${parsed.error.issues[0]?.message ?? 'bad value'}; using ${JSON.stringify(DEFAULT_SUBAGENT_SETTINGS[key])}`,
    );
    return DEFAULT_SUBAGENT_SETTINGS[key];
  };
  return { settings: { model: pick('model'), maxConcurrent: pick('maxConcurrent'), maxRequests: pick('maxRequests') }, errors };
}
