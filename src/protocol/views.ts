// Plain view shapes the host derives from its state (budget, session, settings) and the field helpers every schema uses.
import { LIMITS } from './limits.js';
import * as z from 'zod/mini';

/** A finite number: JSON would turn NaN/Infinity into null, so they never pass. */
const count = z.number();
/** A non-negative finite number (token counts, durations). */
export const amount = z.number().check(z.nonnegative());
export const text = (max: number): z.ZodMiniString<string> => z.string().check(z.maxLength(max));
/** Ids chosen by the host (entries, items, operations): bounded, never empty. */
export const itemId = z.string().check(z.minLength(1)).check(z.maxLength(LIMITS.id));
/** Checkpoint ids as the transcript writes them (`ck_…`); intents naming one are checked against the same shape. */
export const checkpointId = z
  .string()
  .check(z.regex(/^ck_[A-Za-z0-9_-]+$/))
  .check(z.maxLength(LIMITS.id));

const MeasurementSourceSchema = z.enum(['provider_usage', 'estimated']);

/** Token use per category of the request payload (docs/behaviour.md#observability). */
export const BudgetCategoriesSchema = z.object({
  system: count,
  tools: count,
  capsule: count,
  messages: count,
  toolResults: count,
  reservedOutput: count,
});

/** Everything `/budget` shows (docs/behaviour.md#observability), as plain data the webview can draw. */
export const BudgetViewSchema = z.object({
  model: text(LIMITS.id),
  contextWindow: count,
  maxOutputTokens: count,
  effectiveTokens: count,
  source: MeasurementSourceSchema,
  softLimit: count,
  hardLimit: count,
  safetyReserveTokens: count,
  keepRecentTokens: count,
  capsules: count,
  messages: count,
  turns: count,
  lastCapsule: z.optional(z.object({ ageMs: count, tokens: count, checkpointId: text(LIMITS.id), quality: z.enum(['full', 'partial', 'degraded']) })),
  savingsRatio: count,
  reclaimableTokens: count,
  autoCompact: z.boolean(),
  nextTrigger: text(LIMITS.label),
  categories: BudgetCategoriesSchema,
  percentOfHard: count,
  /** Where the window came from; `default`: nobody reported it, so it is an assumption (shown as "window unknown — set it"). */
  windowSource: z.optional(z.enum(['table', 'provider', 'learned', 'override', 'default'])),
  /** Instruction files and their tokens (part of the system prompt). */
  instructions: z.optional(z.array(z.object({ label: text(LIMITS.line), tokens: count })).check(z.maxLength(200))),
  /** The chat mode (Agent or read-only Ask); absent when the chat reads no instructions. */
  mode: z.optional(z.enum(['agent', 'ask'])),
});

export const SessionViewSchema = z.object({
  id: text(LIMITS.id),
  title: z.optional(text(LIMITS.label)),
  createdAt: text(LIMITS.stamp),
  /** Entries in the file (all branches). */
  entries: count,
  readOnly: z.boolean(),
  readOnlyReason: z.optional(text(LIMITS.line)),
  /** How many lines were skipped or repaired while loading. */
  problems: count,
});

export const SettingsViewSchema = z.object({
  modelId: text(LIMITS.id),
  provider: text(LIMITS.id),
  autoCompact: z.boolean(),
  /** False when settings are invalid or CAPSULE_AUTO_COMPACT=false. */
  softTriggersEnabled: z.boolean(),
  warning: z.optional(text(LIMITS.notice)),
});

export type BudgetCategories = z.infer<typeof BudgetCategoriesSchema>;
export type BudgetView = z.infer<typeof BudgetViewSchema>;
export type SessionView = z.infer<typeof SessionViewSchema>;
export type SettingsView = z.infer<typeof SettingsViewSchema>;
