// Compaction triggers and pending intents (docs/behaviour.md#triggers): which trigger, if any, fires at a preflight barrier.
import * as z from '../zod.js';
import type { ResolvedSettings } from '../config.js';
import type { Trigger } from '../transcript/schema.js';

/** Fire whatever the settings say; the mandatory model-switch handoff joins them (see TriggerChoice.mandatory). */
export const MANDATORY_TRIGGERS = ['hard_limit', 'context_overflow'] as const satisfies readonly Trigger[];
/** Off with `auto: false`, CAPSULE_AUTO_COMPACT=false or invalid settings; ROI-gated; one attempt per turn. */
export const SOFT_TRIGGERS = ['milestone', 'plan_pivot', 'turn_complete', 'auto_threshold', 'idle', 'model_switch'] as const satisfies readonly Trigger[];

/** An idle compaction only pays off above this many effective tokens. */
export const IDLE_MIN_TOKENS = 30_000;

export type SoftTrigger = (typeof SOFT_TRIGGERS)[number];
export type IntentKind = 'milestone' | 'plan_pivot' | 'turn_complete' | 'idle' | 'model_switch';

/** `model_switch` counts as soft here; its mandatory form is reported by `TriggerChoice.mandatory`. */
export function isSoftTrigger(t: Trigger): t is SoftTrigger {
  return (SOFT_TRIGGERS as readonly Trigger[]).includes(t);
}

export interface PendingIntent {
  readonly kind: IntentKind;
  /** E.g. the checkpoint id of a milestone, or the model switched to. */
  readonly detail?: string;
}

export interface TriggerChoice {
  readonly trigger: Trigger;
  /** Fail-closed: the request must not be sent unless this compaction succeeds. */
  readonly mandatory: boolean;
  /** Exempt from the ROI gates of docs/behaviour.md#roi: hard_limit, context_overflow, user and the mandatory model switch. */
  readonly roiExempt: boolean;
  /** The user's `/compact <focus>` text, carried whichever trigger wins. */
  readonly focus?: string;
  /** The detail recorded with the intent that fired. */
  readonly detail?: string;
  /** "Compact up to here": the user message the cut goes right before (a user compaction with an explicit cut). */
  readonly cutBefore?: string;
}

export interface ChooseArgs {
  readonly effective: number;
  readonly limits: { readonly hardLimit: number; readonly softLimit: number };
  readonly settings: ResolvedSettings;
  /** The pre-generation ROI gate (docs/behaviour.md#roi) for the current effective tokens. */
  readonly roi: { readonly pass: boolean };
  /** The new model's hard limit is below the current effective tokens: the handoff cannot be skipped. */
  readonly mandatoryModelSwitch?: boolean;
  readonly userRequested?: { readonly focus?: string };
}

const IntentSchema = z.object({
  kind: z.enum(['milestone', 'plan_pivot', 'turn_complete', 'idle', 'model_switch']),
  detail: z.optional(z.string()),
});
const TriggerStateDataSchema = z.object({
  turnId: z.nullable(z.string()),
  softAttempted: z.boolean(),
  overflowRecoveries: z.number().check(z.int(), z.nonnegative()),
  pending: z.array(IntentSchema),
});
export type TriggerStateData = z.infer<typeof TriggerStateDataSchema>;

/** Pending intents plus the per-turn budget of soft attempts and overflow recoveries; no I/O, JSON round-trippable. */
export class TriggerState {
  private pending: PendingIntent[] = [];
  private turnId: string | null = null;
  private softAttempted = false;
  private overflowRecoveries = 0;

  static fromJSON(value: unknown): TriggerState {
    const state = new TriggerState();
    const parsed = TriggerStateDataSchema.safeParse(value);
    if (!parsed.success) return state; // a damaged snapshot only loses pending intents, never hard protection
    state.pending = parsed.data.pending.map((p) => (p.detail === undefined ? { kind: p.kind } : { kind: p.kind, detail: p.detail }));
    state.turnId = parsed.data.turnId;
    state.softAttempted = parsed.data.softAttempted;
    state.overflowRecoveries = parsed.data.overflowRecoveries;
    return state;
  }

  toJSON(): TriggerStateData {
    return {
      turnId: this.turnId,
      softAttempted: this.softAttempted,
      overflowRecoveries: this.overflowRecoveries,
      pending: this.pending.map((p) => ({ ...p })),
    };
  }

  /** Drops pending soft intents: after a rewind they describe a branch the chat has left. */
  clearIntents(): void {
    this.pending = [];
  }

  pendingIntents(): readonly PendingIntent[] {
    return [...this.pending];
  }

  currentTurn(): string | null {
    return this.turnId;
  }

  /** Soft triggers only record an intent; the compaction runs at the next preflight barrier. One intent per kind. */
  recordIntent(kind: IntentKind, detail?: string): void {
    const intent: PendingIntent = detail === undefined ? { kind } : { kind, detail };
    const at = this.pending.findIndex((p) => p.kind === kind);
    if (at >= 0) this.pending[at] = intent;
    else this.pending.push(intent);
  }

  beginTurn(turnId: string): void {
    this.turnId = turnId;
    this.softAttempted = false;
    this.overflowRecoveries = 0;
  }

  /** The provider reported a real overflow: one mandatory recovery per turn, then the turn must end (docs/behaviour.md#overflow). */
  overflowRecovery(): TriggerChoice | undefined {
    if (this.overflowRecoveries > 0) return undefined;
    this.overflowRecoveries += 1;
    return { trigger: 'context_overflow', mandatory: true, roiExempt: true };
  }

  /**
   * The preflight decision: hard_limit > mandatory model_switch > user > milestone/plan_pivot > turn_complete >
   * auto_threshold > idle > optional model_switch. Any compaction it returns satisfies every pending intent, so
   * they are consumed; with no soft attempt left this turn, pending intents wait for the next turn.
   */
  choose(args: ChooseArgs): TriggerChoice | undefined {
    const focus = args.userRequested?.focus;
    const withFocus = focus === undefined ? {} : { focus };
    if (args.effective > args.limits.hardLimit) {
      this.pending = [];
      return { trigger: 'hard_limit', mandatory: true, roiExempt: true, ...withFocus };
    }
    if (args.mandatoryModelSwitch === true) {
      const detail = this.take('model_switch')?.detail;
      this.pending = [];
      return { trigger: 'model_switch', mandatory: true, roiExempt: true, ...withFocus, ...(detail === undefined ? {} : { detail }) };
    }
    if (args.userRequested !== undefined) {
      this.pending = [];
      return { trigger: 'user', mandatory: false, roiExempt: true, ...withFocus };
    }
    const s = args.settings.settings;
    if (!args.settings.softTriggersEnabled || !s.auto) {
      this.pending = []; // nothing soft may run; stale intents must not fire when auto-compact is turned back on
      return undefined;
    }
    if (this.softAttempted) return undefined;
    const soft = this.pickSoft(args);
    this.pending = [];
    if (soft === undefined) return undefined;
    this.softAttempted = true;
    return { ...soft, mandatory: false, roiExempt: false, ...withFocus };
  }

  private pickSoft(args: ChooseArgs): { trigger: SoftTrigger; detail?: string } | undefined {
    if (!args.roi.pass) return undefined;
    const s = args.settings.settings;
    const atSoft = args.effective >= args.limits.softLimit;
    const fromIntent = (p: PendingIntent | undefined): { trigger: SoftTrigger; detail?: string } | undefined =>
      p === undefined ? undefined : p.detail === undefined ? { trigger: p.kind } : { trigger: p.kind, detail: p.detail };

    // milestone and plan_pivot share a rank; the one recorded first wins.
    const checkpoint = s.compactOnMilestone ? this.pending.find((p) => p.kind === 'milestone' || p.kind === 'plan_pivot') : undefined;
    if (checkpoint !== undefined) return fromIntent(checkpoint);
    if (s.compactOnTurnComplete && atSoft) {
      const turn = this.pending.find((p) => p.kind === 'turn_complete');
      if (turn !== undefined) return fromIntent(turn);
    }
    if (atSoft) return { trigger: 'auto_threshold' };
    if (s.compactOnIdle && args.effective >= IDLE_MIN_TOKENS) {
      const idle = this.pending.find((p) => p.kind === 'idle');
      if (idle !== undefined) return fromIntent(idle);
    }
    if (s.compactOnModelSwitch) return fromIntent(this.pending.find((p) => p.kind === 'model_switch'));
    return undefined;
  }

  private take(kind: IntentKind): PendingIntent | undefined {
    const at = this.pending.findIndex((p) => p.kind === kind);
    return at < 0 ? undefined : this.pending.splice(at, 1)[0];
  }
}

/** True when an idle compaction is due: enabled, idle for `idleMinutes`, and at least IDLE_MIN_TOKENS to reclaim from. */
export function idleDue(lastActivityMs: number, now: number, settings: ResolvedSettings, effective: number): boolean {
  const s = settings.settings;
  if (!settings.softTriggersEnabled || !s.auto || !s.compactOnIdle) return false;
  return effective >= IDLE_MIN_TOKENS && now - lastActivityMs >= s.idleMinutes * 60_000;
}
