// Plain view shapes the host derives from its state (budget, session, settings) and the field helpers every schema uses.
import { LIMITS } from './limits.js';
import { z } from 'zod';

/** A finite number: JSON would turn NaN/Infinity into null, so they never pass. */
export const count = z.number().finite();
/** A non-negative finite number (token counts, durations). */
export const amount = z.number().finite().nonnegative();
export const text = (max: number): z.ZodString => z.string().max(max);
/** Ids chosen by the host (entries, items, operations): bounded, never empty. */
export const itemId = z.string().min(1).max(LIMITS.id);
/** Checkpoint ids as the transcript writes them (`ck_…`); intents naming one are checked against the same shape. */
export const checkpointId = z.string().regex(/^ck_[A-Za-z0-9_-]+$/).max(LIMITS.id);

export const MeasurementSourceSchema = z.enum(['provider_usage', 'estimated']);

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
  lastCapsule: z
    .object({ ageMs: count, tokens: count, checkpointId: text(LIMITS.id), quality: z.enum(['full', 'partial', 'degraded']) })
    .optional(),
  savingsRatio: count,
  reclaimableTokens: count,
  autoCompact: z.boolean(),
  nextTrigger: text(LIMITS.label),
  categories: BudgetCategoriesSchema,
  percentOfHard: count,
  /** Where the window came from; `default`: nobody reported it, so it is an assumption (shown as "window unknown — set it"). */
  windowSource: z.enum(['table', 'provider', 'learned', 'override', 'default']).optional(),
  /** Instruction files and their tokens (part of the system prompt). */
  instructions: z.array(z.object({ label: text(LIMITS.line), tokens: count })).max(200).optional(),
  /** The chat mode (Agent or read-only Ask); absent when the chat reads no instructions. */
  mode: z.enum(['agent', 'ask']).optional(),
});

export const SessionViewSchema = z.object({
  id: text(LIMITS.id),
  title: text(LIMITS.label).optional(),
  createdAt: text(LIMITS.stamp),
  /** Entries in the file (all branches). */
  entries: count,
  readOnly: z.boolean(),
  readOnlyReason: text(LIMITS.line).optional(),
  /** How many lines were skipped or repaired while loading. */
  problems: count,
});

export const SettingsViewSchema = z.object({
  modelId: text(LIMITS.id),
  provider: text(LIMITS.id),
  autoCompact: z.boolean(),
  /** False when settings are invalid or CAPSULE_AUTO_COMPACT=false. */
  softTriggersEnabled: z.boolean(),
  warning: text(LIMITS.notice).optional(),
});

export type MeasurementSource = z.infer<typeof MeasurementSourceSchema>;
export type BudgetCategories = z.infer<typeof BudgetCategoriesSchema>;
export type BudgetView = z.infer<typeof BudgetViewSchema>;
export type SessionView = z.infer<typeof SessionViewSchema>;
export type SettingsView = z.infer<typeof SettingsViewSchema>;
