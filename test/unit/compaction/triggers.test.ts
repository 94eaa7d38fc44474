// Triggers and intents (docs/behaviour.md#triggers): the preflight priority table, intents consumed once, one soft attempt per turn, auto-off keeps hard protection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type CompactionSettings, type ResolvedSettings, resolveSettings } from '../../../src/engine/config.js';
import { computeLimits } from '../../../src/engine/tokens/tokenLimits.js';
import {
  IDLE_MIN_TOKENS,
  type IntentKind,
  MANDATORY_TRIGGERS,
  SOFT_TRIGGERS,
  type ChooseArgs,
  TriggerState,
  idleDue,
  isSoftTrigger,
} from '../../../src/engine/compaction/triggers.js';
import { TRIGGERS } from '../../../src/engine/transcript/schema.js';

// docs/behaviour.md#tokens's worked example: window 65000, output 8000, reserve 8192 → hard 48808, soft 39046.
const LIMITS = computeLimits({
  contextWindow: 65000,
  maxOutputTokens: 8000,
  safetyReserveTokens: 8192,
  minTokensForAutoCompact: 32000,
  autoCompactThresholdRatio: 0.8,
});
const HARD = LIMITS.hardLimit;
const SOFT = LIMITS.softLimit;
const BELOW_SOFT = 35_000;
const AT_SOFT = SOFT;
const OVER_HARD = HARD + 1;

function settings(raw: Partial<CompactionSettings> = {}, env: Record<string, string> = {}): ResolvedSettings {
  return resolveSettings({ raw, env, model: { contextWindow: 65000, maxOutputTokens: 8000 } });
}

function args(effective: number, extra: Partial<ChooseArgs> = {}): ChooseArgs {
  return { effective, limits: LIMITS, settings: settings(), roi: { pass: true }, ...extra };
}

function stateWith(...intents: readonly IntentKind[]): TriggerState {
  const s = new TriggerState();
  s.beginTurn('t1');
  for (const k of intents) s.recordIntent(k, `${k}-detail`);
  return s;
}

test('the limits used here are worked example of docs/behaviour.md#tokens', () => {
  assert.deepEqual([HARD, SOFT], [48808, 39046]);
});

test('trigger lists cover the schema exactly once', () => {
  assert.deepEqual([...MANDATORY_TRIGGERS, ...SOFT_TRIGGERS, 'user'].sort(), [...TRIGGERS].sort());
  assert.ok(isSoftTrigger('auto_threshold') && isSoftTrigger('milestone') && isSoftTrigger('model_switch'));
  assert.ok(!isSoftTrigger('hard_limit') && !isSoftTrigger('context_overflow') && !isSoftTrigger('user'));
});

interface Row {
  readonly name: string;
  readonly intents?: readonly IntentKind[];
  readonly effective: number;
  readonly extra?: Partial<ChooseArgs>;
  readonly want: { readonly trigger: string; readonly mandatory: boolean } | undefined;
}

const ALL: readonly IntentKind[] = ['idle', 'model_switch', 'turn_complete', 'plan_pivot', 'milestone'];
const allOn = settings({ compactOnIdle: true, compactOnModelSwitch: true });

const TABLE: readonly Row[] = [
  { name: 'nothing due below the soft limit', effective: BELOW_SOFT, want: undefined },
  { name: 'exactly the hard limit is not over it', effective: HARD, want: { trigger: 'auto_threshold', mandatory: false } },
  {
    name: 'over the hard limit beats everything',
    intents: ALL,
    effective: OVER_HARD,
    extra: { mandatoryModelSwitch: true, userRequested: {} },
    want: { trigger: 'hard_limit', mandatory: true },
  },
  { name: 'hard limit ignores a failing ROI', effective: OVER_HARD, extra: { roi: { pass: false } }, want: { trigger: 'hard_limit', mandatory: true } },
  {
    name: 'mandatory model switch beats user and soft',
    intents: ALL,
    effective: AT_SOFT,
    extra: { mandatoryModelSwitch: true, userRequested: {} },
    want: { trigger: 'model_switch', mandatory: true },
  },
  {
    name: 'user beats pending soft intents',
    intents: ALL,
    effective: AT_SOFT,
    extra: { userRequested: { focus: 'auth' } },
    want: { trigger: 'user', mandatory: false },
  },
  {
    name: 'user needs no ROI and no soft limit',
    effective: 1000,
    extra: { userRequested: {}, roi: { pass: false } },
    want: { trigger: 'user', mandatory: false },
  },
  {
    name: 'milestone beats turn_complete and auto_threshold',
    intents: ['turn_complete', 'milestone'],
    effective: AT_SOFT,
    want: { trigger: 'milestone', mandatory: false },
  },
  {
    name: 'plan_pivot ranks with milestone (first recorded wins)',
    intents: ['turn_complete', 'plan_pivot', 'milestone'],
    effective: AT_SOFT,
    want: { trigger: 'plan_pivot', mandatory: false },
  },
  {
    name: 'milestone fires below the soft limit when ROI passes',
    intents: ['milestone'],
    effective: BELOW_SOFT,
    want: { trigger: 'milestone', mandatory: false },
  },
  { name: 'milestone needs ROI', intents: ['milestone'], effective: AT_SOFT, extra: { roi: { pass: false } }, want: undefined },
  { name: 'turn_complete beats auto_threshold', intents: ['turn_complete'], effective: AT_SOFT, want: { trigger: 'turn_complete', mandatory: false } },
  { name: 'turn_complete needs the soft limit', intents: ['turn_complete'], effective: BELOW_SOFT, want: undefined },
  { name: 'auto_threshold at the soft limit', effective: AT_SOFT, want: { trigger: 'auto_threshold', mandatory: false } },
  { name: 'auto_threshold needs ROI', effective: AT_SOFT, extra: { roi: { pass: false } }, want: undefined },
  {
    name: 'auto_threshold beats idle and an optional switch',
    intents: ['idle', 'model_switch'],
    effective: AT_SOFT,
    extra: { settings: allOn },
    want: { trigger: 'auto_threshold', mandatory: false },
  },
  {
    name: 'idle below the soft limit when enabled',
    intents: ['idle', 'model_switch'],
    effective: BELOW_SOFT,
    extra: { settings: allOn },
    want: { trigger: 'idle', mandatory: false },
  },
  { name: 'idle is off by default', intents: ['idle'], effective: BELOW_SOFT, want: undefined },
  { name: 'idle needs 30k tokens', intents: ['idle'], effective: IDLE_MIN_TOKENS - 1, extra: { settings: allOn }, want: undefined },
  {
    name: 'optional model switch when enabled',
    intents: ['model_switch'],
    effective: BELOW_SOFT,
    extra: { settings: allOn },
    want: { trigger: 'model_switch', mandatory: false },
  },
  { name: 'optional model switch is off by default', intents: ['model_switch'], effective: BELOW_SOFT, want: undefined },
  {
    name: 'compactOnMilestone:false skips milestone, not auto_threshold',
    intents: ['milestone', 'plan_pivot'],
    effective: AT_SOFT,
    extra: { settings: settings({ compactOnMilestone: false }) },
    want: { trigger: 'auto_threshold', mandatory: false },
  },
  {
    name: 'compactOnTurnComplete:false skips turn_complete',
    intents: ['turn_complete'],
    effective: AT_SOFT,
    extra: { settings: settings({ compactOnTurnComplete: false }) },
    want: { trigger: 'auto_threshold', mandatory: false },
  },
];

test('the preflight priority table', () => {
  for (const row of TABLE) {
    const s = stateWith(...(row.intents ?? []));
    const got = s.choose(args(row.effective, row.extra));
    assert.deepEqual(got === undefined ? undefined : { trigger: got.trigger, mandatory: got.mandatory }, row.want, row.name);
  }
});

test('choices say which are exempt from ROI, carry the user focus and the intent detail', () => {
  assert.equal(stateWith().choose(args(OVER_HARD))?.roiExempt, true);
  assert.equal(stateWith().choose(args(AT_SOFT))?.roiExempt, false);
  const user = stateWith().choose(args(1000, { userRequested: { focus: 'the auth refactor' } }));
  assert.deepEqual([user?.trigger, user?.roiExempt, user?.focus], ['user', true, 'the auth refactor']);
  assert.equal(stateWith().choose(args(OVER_HARD, { userRequested: { focus: 'db' } }))?.focus, 'db', 'a hard compaction still honours the focus');
  assert.equal(stateWith('milestone').choose(args(AT_SOFT))?.detail, 'milestone-detail');
  const handoff = stateWith('model_switch').choose(args(AT_SOFT, { mandatoryModelSwitch: true }));
  assert.deepEqual([handoff?.mandatory, handoff?.roiExempt, handoff?.detail], [true, true, 'model_switch-detail']);
});

test('intents are consumed once', () => {
  const s = stateWith('milestone');
  assert.equal(s.choose(args(BELOW_SOFT))?.trigger, 'milestone');
  assert.deepEqual(s.pendingIntents(), []);
  s.beginTurn('t2');
  assert.equal(s.choose(args(BELOW_SOFT)), undefined, 'the milestone does not fire twice');
  // a second record of the same kind replaces the first, it does not queue twice
  s.recordIntent('plan_pivot', 'a');
  s.recordIntent('plan_pivot', 'b');
  assert.deepEqual(s.pendingIntents(), [{ kind: 'plan_pivot', detail: 'b' }]);
});

test('an intent that does not qualify at its preflight is dropped, not kept for later', () => {
  const s = stateWith('turn_complete');
  assert.equal(s.choose(args(BELOW_SOFT)), undefined);
  s.beginTurn('t2');
  assert.equal(s.choose(args(AT_SOFT))?.trigger, 'auto_threshold', 'the old turn_complete intent is gone');
});

test('a mandatory compaction satisfies pending intents', () => {
  const s = stateWith('milestone', 'turn_complete');
  assert.equal(s.choose(args(OVER_HARD))?.trigger, 'hard_limit');
  assert.deepEqual(s.pendingIntents(), []);
});

test('at most one soft attempt per turn; hard protection is never rationed', () => {
  const s = stateWith();
  assert.equal(s.choose(args(AT_SOFT))?.trigger, 'auto_threshold');
  assert.equal(s.choose(args(AT_SOFT)), undefined, 'second soft attempt in the same turn');
  assert.equal(s.choose(args(OVER_HARD))?.trigger, 'hard_limit');
  assert.equal(s.choose(args(1000, { userRequested: {} }))?.trigger, 'user');
  assert.equal(s.choose(args(AT_SOFT, { mandatoryModelSwitch: true }))?.trigger, 'model_switch');
  s.recordIntent('milestone', 'ck_1');
  assert.equal(s.choose(args(AT_SOFT)), undefined, 'a milestone recorded after the attempt waits');
  assert.deepEqual(s.pendingIntents(), [{ kind: 'milestone', detail: 'ck_1' }]);
  s.beginTurn('t2');
  const next = s.choose(args(AT_SOFT));
  assert.deepEqual([next?.trigger, next?.detail], ['milestone', 'ck_1'], 'the waiting milestone fires in the next turn');
});

test('a soft trigger blocked by ROI does not use up the turn', () => {
  const s = stateWith();
  assert.equal(s.choose(args(AT_SOFT, { roi: { pass: false } })), undefined);
  assert.equal(s.choose(args(AT_SOFT))?.trigger, 'auto_threshold');
});

test('auto:false and CAPSULE_AUTO_COMPACT=false disable only the soft triggers', () => {
  const off = [settings({ auto: false }), settings({}, { CAPSULE_AUTO_COMPACT: 'false' }), settings({ keepRecentTokens: 60000 })];
  assert.equal(off[1]?.softTriggersEnabled, false);
  assert.equal(off[2]?.softTriggersEnabled, false, 'invalid settings also turn soft triggers off');
  for (const st of off) {
    const s = stateWith('milestone', 'plan_pivot', 'turn_complete', 'idle', 'model_switch');
    assert.equal(s.choose(args(AT_SOFT, { settings: st })), undefined);
    assert.deepEqual(s.pendingIntents(), [], 'stale intents do not fire once auto-compact is back on');
    assert.equal(s.choose(args(OVER_HARD, { settings: st }))?.trigger, 'hard_limit');
    assert.equal(s.choose(args(BELOW_SOFT, { settings: st, mandatoryModelSwitch: true }))?.trigger, 'model_switch');
    assert.equal(s.choose(args(BELOW_SOFT, { settings: st, userRequested: {} }))?.trigger, 'user');
    assert.equal(s.overflowRecovery()?.trigger, 'context_overflow');
  }
});

test('overflow recovery: one mandatory compaction per turn', () => {
  const s = stateWith();
  const first = s.overflowRecovery();
  assert.deepEqual([first?.trigger, first?.mandatory, first?.roiExempt], ['context_overflow', true, true]);
  assert.equal(s.overflowRecovery(), undefined);
  s.beginTurn('t2');
  assert.equal(s.overflowRecovery()?.trigger, 'context_overflow');
});

test('the state round-trips through JSON; a damaged snapshot starts empty', () => {
  const s = stateWith('milestone', 'idle');
  s.choose(args(OVER_HARD));
  s.recordIntent('turn_complete');
  s.choose(args(AT_SOFT)); // uses the soft attempt
  s.recordIntent('plan_pivot', 'ck_9');
  s.overflowRecovery();
  const copy = TriggerState.fromJSON(JSON.parse(JSON.stringify(s)));
  assert.deepEqual(copy.toJSON(), s.toJSON());
  assert.equal(copy.currentTurn(), 't1');
  assert.equal(copy.choose(args(AT_SOFT)), undefined, 'the used soft attempt survives the round trip');
  assert.equal(copy.overflowRecovery(), undefined);
  const fresh = TriggerState.fromJSON({ pending: [{ kind: 'bogus' }] });
  assert.deepEqual(fresh.toJSON(), { turnId: null, softAttempted: false, overflowRecoveries: 0, pending: [] });
});

test('idleDue: enabled, idle long enough, at least 30k tokens', () => {
  const on = settings({ compactOnIdle: true, idleMinutes: 5 });
  const t0 = 1_700_000_000_000;
  const five = 5 * 60_000;
  assert.equal(idleDue(t0, t0 + five, on, IDLE_MIN_TOKENS), true);
  assert.equal(idleDue(t0, t0 + five - 1, on, IDLE_MIN_TOKENS), false, 'not idle long enough');
  assert.equal(idleDue(t0, t0 + five, on, IDLE_MIN_TOKENS - 1), false, 'too little to reclaim');
  assert.equal(idleDue(t0, t0 + five, settings(), 100_000), false, 'off by default');
  assert.equal(idleDue(t0, t0 + five, settings({ compactOnIdle: true, auto: false }), 100_000), false);
  assert.equal(idleDue(t0, t0 + five, settings({ compactOnIdle: true }, { CAPSULE_AUTO_COMPACT: 'false' }), 100_000), false);
});

test('clearIntents drops pending intents (a rewind leaves the branch they were recorded on)', () => {
  const t = new TriggerState();
  t.recordIntent('milestone', 'tests green');
  t.recordIntent('turn_complete');
  assert.equal(t.pendingIntents().length, 2);
  t.clearIntents();
  assert.deepEqual(t.pendingIntents(), []);
});
