// The agent (docs/behaviour.md#barrier, #overflow, #cache-epochs, #agent): user message → preflight → stream → tools → preflight → … → final answer, over ports only.
import { PreflightBarrier, type PreflightResult } from '../compaction/barrier.js';
import { BranchReader } from '../compaction/branchReader.js';
import { idleDue, TriggerState } from '../compaction/triggers.js';
import type { ResolvedSettings } from '../config.js';
import type { ChatRequest } from '../ports.js';
import { requestFingerprint } from '../tokens/calibration.js';
import type { Limits } from '../tokens/tokenLimits.js';
import { buildModelInput } from '../transcript/modelInput.js';
import { appendInterruptedResults } from '../transcript/repair.js';
import type { CheckpointEntry, Entry, LeafEntry, TurnFault } from '../transcript/schema.js';
import type { AgentEvent, AgentListener, TurnInput, TurnResult, TurnStatus } from './agentEvents.js';
import { CacheLineLevel, EpochKeeper } from './cacheEpoch.js';
import {
  modelChangeEntry,
  protectiveHandoff,
  sameRecordedModel,
  windowSourceOf,
  type AgentModel,
  type SwitchResult,
  type SwitchTarget,
} from './modelSwitch.js';
import { type AgentDeps, infoOf } from './agentDeps.js';
import type { FaultInfo } from '../provider/faults.js';
import { learnWindow } from './windowLearning.js';
import { DEFAULT_AGENT_OPTIONS, type AgentOptions, type TurnState } from './turnRequest.js';
import { finishTurn, type TurnEndContext } from './turnEnd.js';
import { guarded, runSteps } from './turnSteps.js';
import { runUserTurn, type UserTurnHost } from './userTurn.js';
import { retryPoint } from './turnRetry.js';
import { instructionSyncOf, type InstructionSync } from './instructionSync.js';
import { CheckpointBatch } from './checkpointBatch.js';
import { ExclusiveRuns } from './exclusiveRuns.js';

/** The kinds a new epoch's base is folded from. */
const SYSTEM_UPDATES: ReadonlySet<string> = new Set(['system_update']);

export type { AgentModel, SwitchResult, SwitchTarget } from './modelSwitch.js';
export { type AgentOptions } from './turnRequest.js';

export type { AgentDeps } from './agentDeps.js';

export class Agent {
  readonly barrier: PreflightBarrier;
  readonly triggers: TriggerState;
  private readonly deps: AgentDeps;
  private readonly options: AgentOptions;
  private readonly branches: BranchReader;
  private readonly epochs: EpochKeeper;
  private readonly cacheLines = new CacheLineLevel();
  private readonly listeners = new Set<AgentListener>();
  private model: AgentModel;
  private resolved: ResolvedSettings;
  private readonly runs: ExclusiveRuns;
  private turnId: string | undefined;
  private readonly pendingUpdates: { readonly content: string; readonly reason?: string }[] = [];
  private readonly checkpoints: CheckpointBatch;
  private readonly host: UserTurnHost & TurnEndContext;
  /** Instruction files, skills and mode kept in step with the model's prompt; absent when the session reads none. */
  readonly instructions: InstructionSync | undefined;

  constructor(deps: AgentDeps) {
    this.deps = deps;
    this.options = { ...DEFAULT_AGENT_OPTIONS, ...deps.options };
    this.model = deps.model;
    this.resolved = deps.resolved;
    this.triggers = deps.triggers ?? new TriggerState();
    this.branches = new BranchReader(deps.store);
    this.runs = new ExclusiveRuns(() => deps.clock.now());
    this.barrier = new PreflightBarrier({
      store: deps.store,
      archive: deps.archive,
      clock: deps.clock,
      ids: deps.ids,
      cache: deps.cache,
      model: deps.model.chat,
      tools: deps.tools.schemas(),
      defaultSystem: deps.systemPrompt,
      resolved: deps.resolved,
      modelInfo: infoOf(deps.model),
      triggers: this.triggers,
      ...(deps.recordFlight === undefined ? {} : { recordFlight: deps.recordFlight }),
      ...(deps.logger === undefined ? {} : { logger: deps.logger }),
      ...(deps.testCommands === undefined ? {} : { testCommands: deps.testCommands }),
      listener: (event) => this.emit({ type: 'barrier', ...(this.turnId === undefined ? {} : { turnId: this.turnId }), event }),
    });
    this.epochs = new EpochKeeper({
      append: (e) => deps.store.append(e),
      entryBase: () => this.entryBase(),
      branch: () => this.branches.branch(),
      tail: () => this.branches.tail(),
      figures: () => this.branches.figures(),
      systemUpdates: () => this.branches.ofKinds(SYSTEM_UPDATES),
      systemPrompt: deps.systemPrompt,
      instructions: () => this.instructions?.forEpoch(),
    });
    this.instructions = instructionSyncOf(deps, this.epochs, this.branches, (e) => this.emit(e));
    this.checkpoints = new CheckpointBatch({
      store: deps.store,
      ids: deps.ids,
      triggers: this.triggers,
      entryBase: () => this.entryBase(),
      sinceLastAnswer: () => this.branches.sinceLastAnswer(),
    });
    this.host = this.makeHost();
  }

  /** Adds a listener; returns the unsubscribe. A throwing listener never breaks the agent. */
  subscribe(listener: AgentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get currentModel(): AgentModel {
    return this.model;
  }

  get settings(): ResolvedSettings {
    return this.resolved;
  }

  /** A turn, compaction or model switch is running or queued. */
  get busy(): boolean {
    return this.runs.active > 0;
  }

  /** Resolves once every queued turn, compaction and switch has finished. */
  idle(): Promise<void> {
    return this.runs.idle();
  }

  /** The active branch of the session, root first. */
  branch(): Entry[] {
    return this.branches.branch();
  }

  limits(): Limits {
    return this.barrier.limits();
  }

  /** Opens the session for work: the epoch's frozen system prompt (docs/behaviour.md#cache-epochs), the model in use, queued instruction updates. */
  start(): Promise<void> {
    return this.exclusive(() => this.prepare());
  }

  /** Runs one turn to its end; never rejects. Turns, compactions and switches run one at a time, in call order. */
  runTurn(input: TurnInput): Promise<TurnResult> {
    const turnId = input.turnId ?? this.deps.ids.next('t_');
    return this.exclusive(() =>
      this.asTurn(turnId, () => runUserTurn(this.host, input, { turnId, signal: input.signal, requests: 0, overflowRetried: false })),
    );
  }

  /** Retry of a failed last turn (docs/behaviour.md#errors): the leaf goes back before the failed request; the same turn continues, no second user message. */
  retryTurn(input: { readonly signal: AbortSignal; readonly turnId?: string }): Promise<TurnResult> {
    return this.exclusive(async () => {
      const point = retryPoint(this.branches.branch(), input.turnId);
      if (!point.ok || this.deps.store.readOnly) {
        // Nothing ran: no turn starts or ends, the user is told why.
        const error = point.ok ? 'This session is read-only; nothing was sent.' : point.error;
        this.emit({ type: 'notice', level: 'error', message: error });
        return { turnId: point.ok ? point.turnId : (input.turnId ?? ''), status: 'failed', error, requests: 0 };
      }
      const turnId = point.turnId;
      return this.asTurn(turnId, async () => {
        const st: TurnState = { turnId, signal: input.signal, requests: 0, overflowRetried: false };
        const leaf: LeafEntry = { ...this.entryBase(), type: 'leaf', targetId: point.targetId, reason: `retry of turn ${turnId}` };
        await this.deps.store.append(leaf);
        this.emit({ type: 'turn_start', turnId, userEntryId: point.userEntryId });
        return guarded(this.host, st, () => this.prepare().then(() => runSteps(this.host, st)));
      });
    });
  }

  /** An instruction change as one appended system update, not a new prefix (docs/behaviour.md#cache-epochs); waits for a running turn's next safe point. False when that text already reaches the model. */
  async appendSystemUpdate(content: string, reason?: string): Promise<boolean> {
    if (this.runs.active > 0 || this.deps.store.readOnly) {
      this.pendingUpdates.push(reason === undefined ? { content } : { content, reason });
      return true;
    }
    return this.epochs.appendUpdate(content, reason);
  }

  /** Reads the instruction sources now (after a mode switch): a change becomes one system update, or waits for the running turn. */
  syncInstructions(): Promise<void> {
    return this.exclusive(async () => (this.deps.store.readOnly ? undefined : this.instructions?.sync()));
  }

  /** A checkpoint (docs/behaviour.md#rewind) from the agent's tool or the user; milestone and plan_pivot record their compaction intent (docs/behaviour.md#triggers). */
  recordCheckpoint(kind: CheckpointEntry['kind'], note?: string): Promise<string> {
    return this.checkpoints.record(kind, note);
  }

  /** The user's `/compact [focus]` (no ROI gate); a completed compaction opens a new cache epoch. */
  compact(focus?: string, signal: AbortSignal = new AbortController().signal): Promise<PreflightResult> {
    return this.exclusive(() => this.withEpoch(() => this.barrier.compactNow(focus, signal)));
  }

  /** Switches the model (docs/behaviour.md#triggers): a smaller hard limit than the current tokens needs the handoff compaction first (refused if it fails); a `model_change` entry marks it. */
  switchModel(target: SwitchTarget, signal: AbortSignal = new AbortController().signal): Promise<SwitchResult> {
    return this.exclusive(async () => {
      const handoff = await protectiveHandoff(
        { barrier: this.barrier, triggers: this.triggers, current: infoOf(this.model), resolved: this.resolved, signal },
        target,
      );
      if (handoff.compacted) await this.epochs.startAfterCompaction();
      const r = handoff.result;
      if (!r.ok) {
        this.emit({ type: 'notice', level: 'error', message: r.error });
        return r;
      }
      this.model = {
        chat: target.chat,
        contextWindow: target.contextWindow,
        maxOutputTokens: target.maxOutputTokens,
        ...(target.windowSource === undefined ? {} : { windowSource: target.windowSource }),
      };
      if (target.resolved !== undefined) this.resolved = target.resolved;
      this.barrier.update({
        model: target.chat,
        modelInfo: infoOf(this.model),
        resolved: this.resolved,
        ...(target.cache === undefined ? {} : { cache: target.cache }),
      });
      if (!this.deps.store.readOnly) await this.recordModel();
      this.emit({ type: 'model_changed', ...infoOf(this.model), ...this.windowSource(), handoff: r.handoff });
      return r;
    });
  }

  /** New settings (docs/behaviour.md#settings change or validation against the model) take effect at the next barrier. */
  updateSettings(resolved: ResolvedSettings): void {
    this.resolved = resolved;
    this.barrier.update({ resolved });
  }

  /** The idle trigger (docs/behaviour.md#triggers, off by default): after `idleMinutes` idle with ≥ 30k tokens, records the intent and runs its barrier now. Undefined when nothing was due. */
  async noteIdle(now: number = this.deps.clock.now(), signal: AbortSignal = new AbortController().signal): Promise<PreflightResult | undefined> {
    if (this.runs.active > 0 || this.deps.store.readOnly) return undefined;
    if (!idleDue(this.runs.lastActivity, now, this.resolved, this.barrier.measure(0).tokens)) return undefined;
    this.triggers.recordIntent('idle');
    return this.exclusive(() => this.withEpoch(() => this.barrier.preflight({ signal, turnId: this.deps.ids.next('idle_') })));
  }

  // ---- internals ------------------------------------------------------------------------------------------

  private emit(e: AgentEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // the UI must never break a turn
      }
    }
  }

  /** `fn` runs as turn `turnId` (notices carry it). */
  private async asTurn<T>(turnId: string, fn: () => Promise<T>): Promise<T> {
    this.turnId = turnId;
    try {
      return await fn();
    } finally {
      this.turnId = undefined;
    }
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.runs.run(fn);
  }

  private entryBase(): { id: string; parentId: string | null; timestamp: string } {
    return { id: this.deps.ids.next('e_'), parentId: this.deps.store.leafId(), timestamp: new Date(this.deps.clock.now()).toISOString() };
  }

  private async prepare(): Promise<void> {
    if (this.deps.store.readOnly) return;
    await this.repairInterrupted();
    await this.epochs.ensureStarted();
    if (!sameRecordedModel(this.branches.figures().model, this.model)) await this.recordModel();
    await this.flushUpdates();
  }

  /** Nothing runs between turns, so a call still open now was cut off by a crash or a kill: close it before anything else. */
  private async repairInterrupted(): Promise<void> {
    const message = await appendInterruptedResults(
      this.branches.sinceLastAnswer(),
      () => this.entryBase(),
      (e) => this.deps.store.append(e),
    );
    if (message === undefined) return;
    this.deps.logger?.log('warn', message);
    this.emit({ type: 'notice', level: 'warn', message });
  }

  private windowSource(): { readonly windowSource?: NonNullable<AgentModel['windowSource']> } {
    return windowSourceOf(this.model);
  }

  private async recordModel(): Promise<void> {
    await this.deps.store.append(modelChangeEntry(this.entryBase(), this.model));
  }

  private async flushUpdates(): Promise<void> {
    while (this.pendingUpdates.length > 0 && !this.deps.store.readOnly) {
      const u = this.pendingUpdates.shift();
      if (u !== undefined) await this.epochs.appendUpdate(u.content, u.reason);
    }
    // Before every request: an edited or newly applicable instruction file becomes one system update.
    if (!this.deps.store.readOnly) await this.instructions?.sync();
  }

  /** Runs a barrier; a completed compaction starts a new cache epoch (docs/behaviour.md#cache-epochs). */
  private async withEpoch(run: () => Promise<PreflightResult>): Promise<PreflightResult> {
    const r = await run();
    const done = [...r.outcomes].reverse().find((o) => o.outcome === 'completed');
    if (done !== undefined && !this.deps.store.readOnly) await this.epochs.startAfterCompaction(done.checkpointId);
    return r;
  }

  /** The agent as the steps of a turn (turnSteps.ts) and its end (turnEnd.ts) see it. */
  private makeHost(): UserTurnHost & TurnEndContext {
    return {
      prepare: () => this.prepare(),
      deps: this.deps,
      barrier: this.barrier,
      triggers: this.triggers,
      sinceLastAnswer: () => this.branches.sinceLastAnswer(),
      emit: (e) => this.emit(e),
      entryBase: () => this.entryBase(),
      flushUpdates: () => this.flushUpdates(),
      preflight: (st) => this.withEpoch(() => this.barrier.preflight({ signal: st.signal, turnId: st.turnId })),
      requestDeps: (st) => ({
        model: this.model,
        options: this.options,
        clock: this.deps.clock,
        ...(this.deps.logger === undefined ? {} : { logger: this.deps.logger }),
        emit: (e) => this.emit(e),
        append: (e) => this.deps.store.append(e),
        entryBase: () => this.entryBase(),
        build: () => this.buildRequest(),
        learnOverflow: (fault) => this.learnOverflow(fault),
        recoverOverflow: () => this.withEpoch(() => this.barrier.recoverOverflow({ signal: st.signal, turnId: st.turnId })),
        epochId: () => this.epochs.epochId(),
        cacheLineLevel: (m) => this.cacheLines.levelFor(m),
      }),
      beginBatch: () => this.checkpoints.begin(),
      flushBatchCheckpoints: (force = false) => this.checkpoints.flush(force),
      finish: (...args) => this.finish(...args),
    };
  }

  /** docs/compaction.md (overflow recovery): the window an overflow states is adopted and persisted (a model_change entry); else the assumed one shrinks. */
  private async learnOverflow(fault: FaultInfo): Promise<void> {
    const learned = learnWindow(this.model, fault, this.barrier.measure(0).tokens);
    if (learned === undefined) return;
    // Either way the window now comes from an overflow, never from the user: it is not recorded as an override.
    this.model = { ...this.model, contextWindow: learned.contextWindow, maxOutputTokens: learned.maxOutputTokens, windowSource: 'learned' as const };
    const resolved = this.deps.resolveFor?.(learned.contextWindow, learned.maxOutputTokens);
    if (resolved !== undefined) this.resolved = resolved;
    this.barrier.update({ modelInfo: infoOf(this.model), resolved: this.resolved });
    this.deps.logger?.log('warn', learned.notice);
    this.emit({ type: 'notice', ...(this.turnId === undefined ? {} : { turnId: this.turnId }), level: 'warn', message: learned.notice });
    if (!this.deps.store.readOnly) await this.recordModel();
    this.emit({
      type: 'model_changed',
      ...infoOf(this.model),
      ...this.windowSource(),
      handoff: false,
      ...(learned.how === 'stated' ? { learnedFrom: 'overflow_error' as const } : {}),
    });
  }

  private buildRequest(): { request: ChatRequest; fingerprint: string } {
    const input = buildModelInput(this.branches.tail(), this.deps.systemPrompt);
    const tools = this.deps.tools.schemas();
    const chat = this.model.chat;
    return {
      request: { system: input.system, messages: input.messages, tools, maxOutputTokens: this.model.maxOutputTokens, stream: true },
      fingerprint: requestFingerprint(chat.provider, chat.model, input.system, tools),
    };
  }

  private finish(
    st: TurnState,
    status: TurnStatus,
    error?: string,
    answer?: string,
    stopReason?: TurnResult['stopReason'],
    fault?: TurnFault,
  ): Promise<TurnResult> {
    return finishTurn(this.host, st, status, {
      ...(error === undefined ? {} : { error }),
      ...(answer === undefined ? {} : { answer }),
      ...(stopReason === undefined ? {} : { stopReason }),
      ...(fault === undefined ? {} : { fault }),
    });
  }
}
