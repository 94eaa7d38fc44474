// The compaction settings of docs/behaviour.md#settings: defaults, per-field validation, cross-field invariants and the warning text.
import * as z from './zod.js';
import { hardLimitOf } from './tokens/tokenLimits.js';
import { DERIVED_KEYS, type DerivedKey, KEEP_SHARE, RECLAIM_SHARE, windowDefaults } from './tokens/windowDefaults.js';

const DEFAULT_AUTO = true;
const DEFAULT_COMPACT_ON_TURN_COMPLETE = true;
const DEFAULT_COMPACT_ON_MILESTONE = true;
const DEFAULT_MIN_TOKENS_FOR_AUTO_COMPACT = 32000;
const DEFAULT_MIN_RECLAIMABLE_TOKENS = 12000;
const DEFAULT_MIN_SAVINGS_RATIO = 0.25;
const DEFAULT_KEEP_RECENT_TOKENS = 20000;
const DEFAULT_SAFETY_RESERVE_TOKENS = 8192;
const DEFAULT_AUTO_COMPACT_THRESHOLD_RATIO = 0.8;
const DEFAULT_TIMEOUT_MS = 15000;
const DEFAULT_IDLE_MINUTES = 5;
const DEFAULT_COMPACT_ON_IDLE = false;
const DEFAULT_COMPACT_ON_MODEL_SWITCH = false;

export interface CompactionSettings {
  readonly auto: boolean;
  readonly compactOnTurnComplete: boolean;
  readonly compactOnMilestone: boolean;
  readonly minTokensForAutoCompact: number;
  readonly minReclaimableTokens: number;
  readonly minSavingsRatio: number;
  readonly keepRecentTokens: number;
  readonly safetyReserveTokens: number;
  readonly autoCompactThresholdRatio: number;
  readonly timeoutMs: number;
  readonly idleMinutes: number;
  readonly compactOnIdle: boolean;
  readonly compactOnModelSwitch: boolean;
}

export const DEFAULT_COMPACTION_SETTINGS: CompactionSettings = {
  auto: DEFAULT_AUTO,
  compactOnTurnComplete: DEFAULT_COMPACT_ON_TURN_COMPLETE,
  compactOnMilestone: DEFAULT_COMPACT_ON_MILESTONE,
  minTokensForAutoCompact: DEFAULT_MIN_TOKENS_FOR_AUTO_COMPACT,
  minReclaimableTokens: DEFAULT_MIN_RECLAIMABLE_TOKENS,
  minSavingsRatio: DEFAULT_MIN_SAVINGS_RATIO,
  keepRecentTokens: DEFAULT_KEEP_RECENT_TOKENS,
  safetyReserveTokens: DEFAULT_SAFETY_RESERVE_TOKENS,
  autoCompactThresholdRatio: DEFAULT_AUTO_COMPACT_THRESHOLD_RATIO,
  timeoutMs: DEFAULT_TIMEOUT_MS,
  idleMinutes: DEFAULT_IDLE_MINUTES,
  compactOnIdle: DEFAULT_COMPACT_ON_IDLE,
  compactOnModelSwitch: DEFAULT_COMPACT_ON_MODEL_SWITCH,
};

const int = (min: number, max: number) => z.number().check(z.int(), z.gte(min), z.lte(max));

/** One schema per field, so a bad value falls back to its default alone and is named in the warning. */
const FIELD_SCHEMAS: { readonly [K in keyof CompactionSettings]: z.ZodMiniType<CompactionSettings[K]> } = {
  auto: z.boolean(),
  compactOnTurnComplete: z.boolean(),
  compactOnMilestone: z.boolean(),
  minTokensForAutoCompact: int(0, 10_000_000),
  minReclaimableTokens: int(0, 10_000_000),
  minSavingsRatio: z.number().check(z.gte(0), z.lte(0.99)),
  keepRecentTokens: int(0, 10_000_000),
  safetyReserveTokens: int(0, 10_000_000),
  autoCompactThresholdRatio: z.number().check(z.gt(0), z.lte(1)),
  timeoutMs: int(1000, 600_000),
  idleMinutes: z.number().check(z.gte(1), z.lte(24 * 60)),
  compactOnIdle: z.boolean(),
  compactOnModelSwitch: z.boolean(),
};

export const SETTING_KEYS = Object.keys(FIELD_SCHEMAS) as readonly (keyof CompactionSettings)[];

/** `capsule.agent.maxRequestsPerTurn`: a runaway tool loop ends the turn after this many model requests. */
export const DEFAULT_MAX_REQUESTS_PER_TURN = 200;
export const AGENT_SETTING_SCHEMAS = { maxRequestsPerTurn: int(1, 100_000) } as const;
export type AgentSettingKey = keyof typeof AGENT_SETTING_SCHEMAS;
export const DEFAULT_AGENT_SETTINGS: { readonly [K in AgentSettingKey]: number } = { maxRequestsPerTurn: DEFAULT_MAX_REQUESTS_PER_TURN };

/**
 * Checks one `capsule.<section>.<key>` value against the same schema the extension's settings use. Returns the
 * parsed value, or a one-line error naming the setting, the bad value and what it must be.
 */
export function checkSetting(section: 'compaction' | 'agent', key: string, value: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  const schemas: Readonly<Record<string, z.ZodMiniType<unknown>>> = section === 'compaction' ? FIELD_SCHEMAS : AGENT_SETTING_SCHEMAS;
  const schema = Object.hasOwn(schemas, key) ? schemas[key] : undefined;
  if (schema === undefined) {
    const known = [...SETTING_KEYS.map((k) => `compaction.${k}`), ...Object.keys(AGENT_SETTING_SCHEMAS).map((k) => `agent.${k}`)];
    return { ok: false, error: `unknown setting 'capsule.${section}.${key}' (known: ${known.join(', ')})` };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: `capsule.${section}.${key} (${JSON.stringify(value)}) is invalid: ${parsed.error.issues[0]?.message ?? 'bad value'}` };
}

export interface ResolvedSettings {
  readonly settings: CompactionSettings;
  /** False when validation failed or CAPSULE_AUTO_COMPACT=false: soft triggers off, hard protection on. */
  readonly softTriggersEnabled: boolean;
  /** Why validation failed, one message per problem. */
  readonly errors: readonly string[];
  /** Non-fatal notes, such as a deprecated alias in use. */
  readonly notices: readonly string[];
  /** The user-facing warning when soft triggers were disabled by invalid settings, else undefined. */
  readonly warning?: string;
  /** Settings the user left unset whose value was derived from the model's window (shown as "auto: N"). */
  readonly derived: readonly DerivedKey[];
}

export interface SettingsContext {
  /** Raw `capsule.compaction.*` values as read; undefined means "not set". */
  readonly raw: Readonly<Record<string, unknown>>;
  /** Environment variables (only CAPSULE_AUTO_COMPACT is read). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The active model's window and output budget, for the cross-field checks. */
  readonly model?: {
    readonly contextWindow: number;
    readonly maxOutputTokens: number;
    /**
     * Tokens fixed in every request (system prompt, tool schemas, MCP schemas, instruction files): one figure each
     * feature adds its share to. Unset: DEFAULT_FIXED_OVERHEAD_TOKENS, the built-in prompt and tools.
     */
    readonly fixedOverheadTokens?: number;
  };
}

function fmt(n: number): string {
  return String(n);
}

/** Reads, validates and defaults the settings; never throws. */
export function resolveSettings(ctx: SettingsContext): ResolvedSettings {
  const errors: string[] = [];
  const notices: string[] = [];
  const raw: Record<string, unknown> = { ...ctx.raw };

  if (raw.timeoutMs === undefined && raw.backgroundTimeoutMs !== undefined) {
    raw.timeoutMs = raw.backgroundTimeoutMs;
    notices.push('capsule.compaction.backgroundTimeoutMs is deprecated; use capsule.compaction.timeoutMs');
  } else if (raw.backgroundTimeoutMs !== undefined) {
    notices.push('capsule.compaction.backgroundTimeoutMs is deprecated and ignored because timeoutMs is set');
  }

  // Unset values follow the window (small windows cannot use the seed's absolute figures); explicit ones are kept.
  const reserveRaw = FIELD_SCHEMAS.safetyReserveTokens.safeParse(raw.safetyReserveTokens);
  const defaults = defaultsFor(ctx.model, reserveRaw.success ? reserveRaw.data : undefined);
  const derived =
    ctx.model === undefined ? [] : DERIVED_KEYS.filter((k) => (raw[k] === undefined || raw[k] === null) && defaults[k] !== DEFAULT_COMPACTION_SETTINGS[k]);
  const out: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = raw[key];
    if (value === undefined || value === null) {
      out[key] = defaults[key];
      continue;
    }
    const parsed = FIELD_SCHEMAS[key].safeParse(value);
    if (parsed.success) out[key] = parsed.data;
    else {
      out[key] = defaults[key];
      errors.push(
        `${key} (${JSON.stringify(value)}) is invalid: ${parsed.error.issues[0]?.message ?? 'bad value'}; leave it unset or use ${JSON.stringify(defaults[key])}`,
      );
    }
  }
  const settings = out as unknown as CompactionSettings;

  if (ctx.model) {
    const { contextWindow, maxOutputTokens } = ctx.model;
    const hard = hardLimitOf(contextWindow, maxOutputTokens, settings.safetyReserveTokens);
    if (hard <= 0) {
      errors.push(
        `hard limit (${fmt(hard)}) must be > 0: context window ${fmt(contextWindow)} - max output ${fmt(maxOutputTokens)} - safetyReserveTokens ${fmt(settings.safetyReserveTokens)}; ` +
          `try safetyReserveTokens ${fmt(defaultsFor(ctx.model, undefined).safetyReserveTokens)} (or leave it unset)`,
      );
    } else {
      // The suggestion is what the window-aware default would be against this hard limit: it always works.
      const working = { keep: Math.floor(hard * KEEP_SHARE), reclaim: Math.floor(hard * RECLAIM_SHARE) };
      if (settings.keepRecentTokens >= hard)
        errors.push(`keepRecentTokens (${fmt(settings.keepRecentTokens)}) must be < hard limit (${fmt(hard)}); try ${fmt(working.keep)}`);
      if (settings.minReclaimableTokens >= hard)
        errors.push(`minReclaimableTokens (${fmt(settings.minReclaimableTokens)}) must be < hard limit (${fmt(hard)}); try ${fmt(working.reclaim)}`);
    }
  }

  const envOff = (ctx.env?.CAPSULE_AUTO_COMPACT ?? '').trim().toLowerCase() === 'false';
  if (envOff) notices.push('CAPSULE_AUTO_COMPACT=false: automatic compaction is off; hard-limit protection stays on');
  const invalid = errors.length > 0;
  const fallback = { ...DEFAULT_COMPACTION_SETTINGS, ...defaultsFor(ctx.model, undefined) };
  return {
    settings: invalid ? { ...fallback, ...pickSafe(settings) } : settings,
    softTriggersEnabled: !invalid && !envOff,
    errors,
    notices,
    warning: invalid ? `Compaction disabled: config validation failed: ${errors.join('; ')}` : undefined,
    derived: invalid ? [] : derived,
  };
}

/** The defaults for this model: the seed's, with the window-derived figures where the window is small. */
function defaultsFor(model: SettingsContext['model'], explicitReserve: number | undefined): CompactionSettings {
  if (model === undefined) return DEFAULT_COMPACTION_SETTINGS;
  return {
    ...DEFAULT_COMPACTION_SETTINGS,
    ...windowDefaults(model.contextWindow, model.maxOutputTokens, DEFAULT_COMPACTION_SETTINGS, explicitReserve, model.fixedOverheadTokens),
  };
}

/** With invalid settings, keep user choices that cannot hurt hard-limit protection; the rest go back to defaults. */
function pickSafe(s: CompactionSettings): Partial<CompactionSettings> {
  return { auto: s.auto, compactOnTurnComplete: s.compactOnTurnComplete, compactOnMilestone: s.compactOnMilestone, timeoutMs: s.timeoutMs };
}
