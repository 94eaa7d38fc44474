// Flight records (docs/behaviour.md#observability): one strict, content-free record per compaction operation, its builder and its log line.
import * as z from '../zod.js';
import { TriggerSchema } from '../transcript/schema.js';
import type { Trigger } from '../transcript/schema.js';

const FLIGHT_OUTCOMES = ['completed', 'skipped', 'cancelled', 'stale', 'failed'] as const;
export type FlightOutcome = (typeof FLIGHT_OUTCOMES)[number];

/** Reasons are short diagnoses; the cap keeps a stray summary or prompt from riding along in one. */
const FLIGHT_REASON_MAX = 1_000;

const tokens = z.number().check(z.int(), z.nonnegative());

// Strict on purpose: a field not listed here (such as `summary`) is rejected, never stored (docs/behaviour.md#observability).
export const FlightRecordSchema = z.strictObject({
  ts: z.string().check(z.minLength(1), z.maxLength(64)),
  operationId: z.string().check(z.minLength(1), z.maxLength(200)),
  sessionId: z.string().check(z.minLength(1), z.maxLength(200)),
  trigger: TriggerSchema,
  level: z.number().check(z.int(), z.gte(0), z.lte(3)),
  outcome: z.enum(FLIGHT_OUTCOMES),
  reason: z.optional(z.string().check(z.maxLength(FLIGHT_REASON_MAX))),
  durationMs: z.number().check(z.nonnegative()),
  limits: z.strictObject({ contextWindow: tokens, hardLimit: tokens, softLimit: tokens }),
  tokensBefore: tokens,
  /** docs/behaviour.md#tokens: whether tokensBefore came from the provider's usage or the local estimate; tokensAfter is always estimated. */
  tokensSource: z.optional(z.enum(['provider_usage', 'estimated'])),
  tokensAfter: z.optional(tokens),
  /** Negative when the capsule cost more than it replaced. */
  reclaimedTokens: z.optional(z.number().check(z.int())),
  reclaimedPct: z.optional(z.number()),
  checkpointId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  quality: z.optional(z.enum(['full', 'partial', 'degraded'])),
  attempts: z.optional(z.number().check(z.int(), z.nonnegative())),
  fallbackReason: z.optional(z.string().check(z.maxLength(FLIGHT_REASON_MAX))),
  /** How many of the span's files, commands, error lines and identifiers survived (counts only, never the items). */
  retention: z.optional(
    z.strictObject({
      files: z.strictObject({ total: tokens, kept: tokens }),
      commands: z.strictObject({ total: tokens, kept: tokens }),
      errors: z.strictObject({ total: tokens, kept: tokens }),
      identifiers: z.strictObject({ total: tokens, kept: tokens }),
      appended: tokens,
    }),
  ),
  /** The capsule sections the model wrote (names only); the others came from the ledger. */
  sectionsFromModel: z.optional(z.array(z.string().check(z.maxLength(40))).check(z.maxLength(7))),
});

type RetentionCounts = NonNullable<z.infer<typeof FlightRecordSchema>['retention']>;

export interface FlightRecord {
  /** ISO time the operation ended. */
  readonly ts: string;
  readonly operationId: string;
  readonly sessionId: string;
  readonly trigger: Trigger;
  readonly level: number;
  readonly outcome: FlightOutcome;
  readonly reason?: string;
  readonly durationMs: number;
  readonly limits: { readonly contextWindow: number; readonly hardLimit: number; readonly softLimit: number };
  readonly tokensBefore: number;
  readonly tokensSource?: 'provider_usage' | 'estimated';
  readonly tokensAfter?: number;
  readonly reclaimedTokens?: number;
  /** Share of tokensBefore reclaimed, in percent (one decimal). */
  readonly reclaimedPct?: number;
  readonly checkpointId?: string;
  readonly quality?: 'full' | 'partial' | 'degraded';
  readonly attempts?: number;
  readonly fallbackReason?: string;
  readonly retention?: RetentionCounts;
  readonly sectionsFromModel?: readonly string[];
}

export interface FlightRecordInput {
  readonly operationId: string;
  readonly sessionId: string;
  readonly trigger: Trigger;
  readonly level: number;
  readonly outcome: FlightOutcome;
  readonly reason?: string;
  /** Clock.now() at the start and at the end of the operation. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly limits: FlightRecord['limits'];
  readonly tokensBefore: number;
  readonly tokensSource?: 'provider_usage' | 'estimated';
  readonly tokensAfter?: number;
  readonly checkpointId?: string;
  readonly quality?: 'full' | 'partial' | 'degraded';
  readonly attempts?: number;
  readonly fallbackReason?: string;
  readonly retention?: RetentionCounts;
  readonly sectionsFromModel?: readonly string[];
}

/** Validates one stored record (an edge: JSONL lines read back); undefined when it is not a record. */
export function parseFlightRecord(value: unknown): FlightRecord | undefined {
  const parsed = FlightRecordSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

function clip(text: string): string {
  return text.length > FLIGHT_REASON_MAX ? `${text.slice(0, FLIGHT_REASON_MAX - 1)}…` : text;
}

/**
 * Builds a record from an operation's facts. Fields are copied one by one, so passing a wider object
 * (say, a compaction result that holds the capsule text) can never leak extra fields into the log.
 */
export function buildFlightRecord(input: FlightRecordInput): FlightRecord {
  const { tokensBefore, tokensAfter } = input;
  const reclaimed = tokensAfter === undefined ? undefined : tokensBefore - tokensAfter;
  const pct = reclaimed === undefined || tokensBefore === 0 ? undefined : Math.round((reclaimed / tokensBefore) * 1000) / 10;
  return {
    ts: new Date(input.endedAt).toISOString(),
    operationId: input.operationId,
    sessionId: input.sessionId,
    trigger: input.trigger,
    level: input.level,
    outcome: input.outcome,
    ...(input.reason === undefined ? {} : { reason: clip(input.reason) }),
    durationMs: Math.max(0, input.endedAt - input.startedAt),
    limits: { contextWindow: input.limits.contextWindow, hardLimit: input.limits.hardLimit, softLimit: input.limits.softLimit },
    tokensBefore,
    ...(input.tokensSource === undefined ? {} : { tokensSource: input.tokensSource }),
    ...(tokensAfter === undefined ? {} : { tokensAfter }),
    ...(reclaimed === undefined ? {} : { reclaimedTokens: reclaimed }),
    ...(pct === undefined ? {} : { reclaimedPct: pct }),
    ...(input.checkpointId === undefined ? {} : { checkpointId: input.checkpointId }),
    ...(input.quality === undefined ? {} : { quality: input.quality }),
    ...(input.attempts === undefined ? {} : { attempts: input.attempts }),
    ...(input.fallbackReason === undefined ? {} : { fallbackReason: clip(input.fallbackReason) }),
    ...(input.retention === undefined ? {} : { retention: copyRetention(input.retention) }),
    ...(input.sectionsFromModel === undefined ? {} : { sectionsFromModel: input.sectionsFromModel.slice(0, 7).map((n) => n.slice(0, 40)) }),
  };
}

function copyRetention(r: RetentionCounts): RetentionCounts {
  const c = (x: { total: number; kept: number }): { total: number; kept: number } => ({ total: x.total, kept: x.kept });
  return { files: c(r.files), commands: c(r.commands), errors: c(r.errors), identifiers: c(r.identifiers), appended: r.appended };
}

/** 52310 → "52,310", independent of the host locale. */
export function groupDigits(n: number): string {
  const sign = n < 0 ? '-' : '';
  return sign + String(Math.abs(Math.round(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** One line for the output channel, e.g. `op_x auto_threshold L0 completed 52,310 → 18,904 (-64%) in 2.3s ck_abc full`. */
export function formatFlightRecord(r: FlightRecord): string {
  const parts = [r.operationId, r.trigger, `L${r.level}`, r.outcome];
  if (r.tokensAfter === undefined) parts.push(groupDigits(r.tokensBefore));
  else {
    const pct = r.reclaimedPct ?? (r.tokensBefore === 0 ? 0 : ((r.tokensBefore - r.tokensAfter) / r.tokensBefore) * 100);
    const shown = Math.round(pct);
    parts.push(`${groupDigits(r.tokensBefore)} → ${groupDigits(r.tokensAfter)} (${shown > 0 ? '-' : shown < 0 ? '+' : '±'}${Math.abs(shown)}%)`);
  }
  parts.push(`in ${formatDuration(r.durationMs)}`);
  if (r.checkpointId !== undefined) parts.push(r.checkpointId);
  if (r.quality !== undefined) parts.push(r.quality);
  if (r.attempts !== undefined && r.attempts > 1) parts.push(`${r.attempts} attempts`);
  let line = parts.join(' ');
  if (r.retention !== undefined) {
    const k = r.retention;
    line += ` retained files ${k.files.kept}/${k.files.total} commands ${k.commands.kept}/${k.commands.total} errors ${k.errors.kept}/${k.errors.total} identifiers ${k.identifiers.kept}/${k.identifiers.total}`;
  }
  if (r.fallbackReason !== undefined) line += ` (fallback: ${oneLine(r.fallbackReason)})`;
  if (r.reason !== undefined) line += `: ${oneLine(r.reason)}`;
  return line;
}
