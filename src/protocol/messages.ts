// The host⇄webview message contract: zod schemas, one discriminated union per direction, types derived from them.
import { z } from 'zod';

const count = z.number().finite();
const text = (max: number) => z.string().max(max);

export const MeasurementSourceSchema = z.enum(['provider_usage', 'estimated']);

/** Token use per category of the request payload (S15). */
export const BudgetCategoriesSchema = z.object({
  system: count,
  tools: count,
  capsule: count,
  messages: count,
  toolResults: count,
  reservedOutput: count,
});

/** Everything `/budget` shows (S15), as plain data the webview can draw. */
export const BudgetViewSchema = z.object({
  model: text(200),
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
    .object({ ageMs: count, tokens: count, checkpointId: text(200), quality: z.enum(['full', 'degraded']) })
    .optional(),
  savingsRatio: count,
  reclaimableTokens: count,
  autoCompact: z.boolean(),
  nextTrigger: text(500),
  categories: BudgetCategoriesSchema,
  percentOfHard: count,
});

export const SessionViewSchema = z.object({
  id: text(200),
  title: text(500).optional(),
  createdAt: text(64),
  /** Entries in the file (all branches). */
  entries: count,
  readOnly: z.boolean(),
  readOnlyReason: text(2000).optional(),
  /** How many lines were skipped or repaired while loading. */
  problems: count,
});

export const SettingsViewSchema = z.object({
  modelId: text(200),
  provider: text(200),
  autoCompact: z.boolean(),
  /** False when settings are invalid or CAPSULE_AUTO_COMPACT=false. */
  softTriggersEnabled: z.boolean(),
  warning: text(4000).optional(),
});

export const HostToWebviewSchema = z.discriminatedUnion('type', [
  /** The full state; the first message after `ready`, and again whenever the session or settings change. */
  z.object({
    type: z.literal('snapshot'),
    session: SessionViewSchema.nullable(),
    budget: BudgetViewSchema.nullable(),
    settings: SettingsViewSchema,
    /** Why no session could be opened, when that happened. */
    error: text(4000).optional(),
  }),
  z.object({ type: z.literal('budget'), budget: BudgetViewSchema }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), text: text(4000) }),
]);

/** Commands the webview may ask the host to run; each maps to one contributed `capsule.*` command. */
export const WebviewCommandSchema = z.enum(['compactContext', 'showBudget', 'toggleAutoCompact', 'newChat', 'showLatestCapsule', 'refresh']);

export const WebviewToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('command'), command: WebviewCommandSchema }),
  /** A runtime error inside the webview, forwarded so it reaches the log instead of a hidden devtools console. */
  z.object({ type: z.literal('webviewError'), message: text(4000), stack: text(16000).optional() }),
]);

export type MeasurementSource = z.infer<typeof MeasurementSourceSchema>;
export type BudgetCategories = z.infer<typeof BudgetCategoriesSchema>;
export type BudgetView = z.infer<typeof BudgetViewSchema>;
export type SessionView = z.infer<typeof SessionViewSchema>;
export type SettingsView = z.infer<typeof SettingsViewSchema>;
export type HostToWebview = z.infer<typeof HostToWebviewSchema>;
export type WebviewCommand = z.infer<typeof WebviewCommandSchema>;
export type WebviewToHost = z.infer<typeof WebviewToHostSchema>;

/** Validates one message received from the webview; never throws. */
export function parseWebviewMessage(data: unknown): { ok: true; message: WebviewToHost } | { ok: false; error: string } {
  const r = WebviewToHostSchema.safeParse(data);
  if (r.success) return { ok: true, message: r.data };
  return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
}

