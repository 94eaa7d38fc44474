// The one engine facade every front end uses (extension, CLI, tests): the engine composed once over the Node ports of one session file.
import { isAbsolute } from 'node:path';
import type { TurnInput, TurnResult } from '../engine/agent/agentEvents.js';
import { DEFAULT_SYSTEM_PROMPT } from '../engine/agent/systemPrompt.js';
import type { Agent, SwitchResult } from '../engine/agent/turnLoop.js';
import type { PreflightBarrier, PreflightResult } from '../engine/compaction/barrier.js';
import { type TriggerState } from '../engine/compaction/triggers.js';
import type { Clock, IdSource, ToolHost } from '../engine/ports.js';
import type { Budget } from '../engine/tokens/budget.js';
import type { TokenCategories } from '../engine/tokens/estimate.js';
import { planUndo, type UndoAction, type UndoPlan } from '../engine/compaction/undo.js';
import type { CheckpointKind, Entry } from '../engine/transcript/schema.js';
import { resolveTarget, type AgentSessionConfig, type ModelConfig } from './agentConfig.js';
import { keysOf, NO_TOOLS, openParts, type Parts } from './agentParts.js';
import { chatCacheKey, withCacheKey } from './cacheKeyModel.js';
import { type FileEvidenceArchive } from './evidenceArchive.js';
import { type FlightRecorder } from './flightRecorder.js';
import { writeIntents } from './intentsFile.js';
import { JsonlSessionStore } from './jsonlStore.js';
import { newSessionAgent, offlineBarrier } from './sessionAgent.js';
import type { CompactOptions, OfflineModel, OfflineSessionConfig, RewindOptions } from './sessionOptions.js';
import { nodeClock, nodeIds } from './nodeClock.js';
import { budgetOf, budgetOfLeaf, categoriesOf, completeCounts, type BudgetBasis } from './sessionBudget.js';
import {
  previewRewind,
  rewindSession,
  switchBranchSession,
  type RewindDone,
  type RewindFailure,
  type RewindPreview,
  type SwitchDone,
} from './sessionRewind.js';
import { type FileSnapshots } from './snapshots/fileSnapshots.js';
import { WorkspaceToolHost } from './tools/workspaceToolHost.js';
import { InstructionToolHost } from './instructions/instructionTools.js';
import { instructionReport } from './instructions/instructionReport.js';
import type { WorkspaceInstructions } from './instructions/workspaceInstructions.js';
import { TaskToolHost } from './subagents/taskToolHost.js';
import { activeSubagentRunsOf, type SubagentRun } from '../engine/agent/subagentResult.js';
import { composeSessionTools } from './sessionTools.js';

export { sidecarPaths } from './agentConfig.js';
export type { AgentSessionConfig, ModelConfig, WorkspaceConfig } from './agentConfig.js';
export type { CompactOptions, OfflineModel, OfflineSessionConfig, RewindOptions } from './sessionOptions.js';

export class AgentSession {
  #saving: Promise<void> = Promise.resolve();
  readonly #onClose: (() => void)[] = [];

  private constructor(
    private readonly parts: Parts,
    readonly barrier: PreflightBarrier,
    /** What budgets are measured against when no agent runs (a compaction-only session). */
    private readonly offline: OfflineModel | undefined,
    private readonly agentOrUndefined: Agent | undefined,
    readonly tools: ToolHost,
    private readonly config: AgentSessionConfig | undefined,
    private readonly clock: Clock,
    private readonly ids: IdSource,
  ) {}

  static async open(config: AgentSessionConfig): Promise<AgentSession> {
    const clock = config.clock ?? nodeClock;
    const ids = config.ids ?? nodeIds;
    const target = resolveTarget(config.model, config.settings, config.env);
    if (target.resolved?.warning) config.logger?.log('warn', target.resolved.warning);
    const create = config.create;
    const owned = config.store === undefined;
    const store =
      config.store ??
      // Tail first with a compact history (docs/loading.md): one pass over the file, older lines kept as records.
      (await JsonlSessionStore.open(config.sessionPath, {
        clock,
        tailFirst: true,
        ...(create === undefined
          ? {}
          : { create: { id: create.id ?? ids.next('s_'), cwd: create.cwd, ...(create.title === undefined ? {} : { title: create.title }) } }),
      }));
    try {
      const parts = await openParts(config.sessionPath, config, store, owned, config.logger, config.triggerState, config.workspace?.roots ?? [], true);
      parts.secrets.push(...keysOf(config.model));
      // The tools call back into the agent (checkpoint, evidence), which needs the tools first: bind late.
      let agent: Agent | undefined;
      const cache = parts.caches.forModel(target.chat.model);
      const composed = await composeSessionTools(config, parts, store, target, cache, () => agent, clock, ids);
      const { tools, mcp } = composed;
      agent = newSessionAgent(config, parts, store, target, { ...composed, cache, clock, ids });
      if (config.listener !== undefined) agent.subscribe(config.listener);
      await agent.start();
      for (const i of [...(config.instructions ?? []), ...(mcp?.initial === undefined ? [] : [mcp.initial])])
        await agent.appendSystemUpdate(i.content, i.reason);
      const live = agent;
      const unfollow = mcp?.follow(
        (c, r) => live.appendSystemUpdate(c, r),
        (err) => config.logger?.log('warn', `MCP tool update not recorded: ${String(err)}`),
      );
      const session = new AgentSession(parts, agent.barrier, undefined, agent, tools, config, clock, ids);
      if (unfollow !== undefined) session.#onClose.push(unfollow);
      return session;
    } catch (err) {
      if (owned) await store.close();
      throw err;
    }
  }

  /** Opens a session file without a turn loop (compact, rewind, budget): the same barrier the agent uses, no epoch or model entries of its own. */
  static async openOffline(config: OfflineSessionConfig): Promise<AgentSession> {
    const store = await JsonlSessionStore.open(config.sessionPath, { tailFirst: true });
    try {
      const roots = config.roots ?? (isAbsolute(store.header.cwd) ? [store.header.cwd] : []);
      const parts = await openParts(
        config.sessionPath,
        config.snapshotKeyFile === undefined ? {} : { snapshotKeyFile: config.snapshotKeyFile },
        store,
        true,
        config.logger,
        undefined,
        roots,
      );
      const m = config.model(store.tree.branch());
      const barrier = offlineBarrier(store, parts, m, config.logger);
      return new AgentSession(parts, barrier, m, undefined, NO_TOOLS, undefined, nodeClock, nodeIds);
    } catch (err) {
      await store.close();
      throw err;
    }
  }

  /** The turn loop; a compaction-only session has none. */
  get agent(): Agent {
    const a = this.agentOrUndefined;
    if (a === undefined) throw new Error('this session was opened without a model; it cannot run turns');
    return a;
  }

  /** Instruction files, skills and the mode (docs/user/instructions.md), when the session reads them. */
  get instructions(): WorkspaceInstructions | undefined {
    const tools = this.tools instanceof TaskToolHost ? this.tools.inner : this.tools;
    return tools instanceof InstructionToolHost ? tools.instructions : undefined;
  }

  get store(): JsonlSessionStore {
    return this.parts.store;
  }

  get archive(): FileEvidenceArchive {
    return this.parts.archive;
  }

  get recorder(): FlightRecorder {
    return this.parts.recorder;
  }

  get triggers(): TriggerState {
    return this.parts.triggers;
  }

  /** One agent turn; the intents it leaves are saved beside the session. */
  async turn(input: TurnInput): Promise<TurnResult> {
    const r = await this.agent.runTurn(input);
    await this.saveIntents();
    return r;
  }

  /** Retry of the last turn after it failed: the same user turn sent again (docs/behaviour.md#errors). */
  async retryTurn(input: { readonly signal: AbortSignal; readonly turnId?: string }): Promise<TurnResult> {
    const r = await this.agent.retryTurn(input);
    await this.saveIntents();
    return r;
  }

  /** `/compact [focus]`, `capsule compact`: a completed compaction of a running agent also opens a new cache epoch. */
  async compact(opts: CompactOptions = {}): Promise<PreflightResult> {
    const signal = opts.signal ?? new AbortController().signal;
    const a = this.agentOrUndefined;
    const r =
      opts.trigger !== undefined
        ? await this.barrier.compactWith(opts.trigger, { signal, ...(opts.focus === undefined ? {} : { focus: opts.focus }) })
        : a !== undefined
          ? await a.compact(opts.focus, signal)
          : await this.barrier.compactNow(opts.focus, signal);
    await this.saveIntents();
    return r;
  }

  /** What rewinding to `ref` (a `ck_…` id or an entry id) would do: the point, and the files that differ from that moment. */
  previewRewind(ref: string): Promise<RewindPreview | RewindFailure> {
    return previewRewind(this.rewindDeps(), ref);
  }

  /**
   * Rewind (docs/rewind.md): the conversation moves its leaf (one appended `leaf` entry, a new branch), the files come
   * back from their snapshots, or both. Refused while a turn runs: the caller stops it first. Pending intents are
   * dropped with the branch they describe.
   */
  async rewind(ref: string, opts: RewindOptions = {}): Promise<RewindDone | RewindFailure> {
    if (this.agentOrUndefined?.busy === true) return { ok: false, error: 'A turn is running; stop it first, then rewind.' };
    const r = await rewindSession(this.rewindDeps(), ref, opts);
    if (r.ok && r.mode !== 'files') {
      this.parts.triggers.clearIntents();
      await this.saveIntents();
    }
    return r;
  }

  /** Switch to the branch that starts at `entryId` (docs/rewind.md#branches); refused while a turn runs, like a rewind. */
  async switchBranch(entryId: string): Promise<SwitchDone | RewindFailure> {
    if (this.agentOrUndefined?.busy === true) return { ok: false, error: 'A turn is running; stop it first, then switch branches.' };
    const r = await switchBranchSession(this.rewindDeps(), entryId);
    if (r.ok) this.parts.triggers.clearIntents();
    return r.ok ? this.saveIntents().then(() => r) : r;
  }

  /** Undo (or redo) one compaction: refused when the model input without that capsule would not fit the hard limit. */
  async undoCompaction(ref: string, action: UndoAction = 'undo'): Promise<UndoPlan> {
    const store = this.parts.store;
    if (store.readOnly) return { ok: false, error: `This session is read-only (${store.readOnlyReason ?? 'open in another window'}).` };
    if (this.agentOrUndefined?.busy === true) return { ok: false, error: 'A turn is running; stop it first, then undo the compaction.' };
    const branch = store.tree.branch();
    const plan = planUndo(branch, store.leafId(), ref, action, { ids: this.ids, clock: this.clock });
    if (!plan.ok) return plan;
    const after = budgetOf([...branch, plan.entry], this.basis(), this.clock.now());
    if (action === 'undo' && after.effectiveTokens > after.hardLimit) {
      return {
        ok: false,
        error: `Undoing compaction ${plan.capsule.checkpointId} would make the next request ${after.effectiveTokens} tokens, above the hard limit (${after.hardLimit}); nothing was changed. Compact again with a focus instead (/compact <what to keep>).`,
      };
    }
    await store.append(plan.entry);
    return plan;
  }

  /** "Compact up to here": a user compaction that summarizes everything before the message `entryId` and keeps it and all after it. */
  async compactUpTo(entryId: string, opts: Omit<CompactOptions, 'trigger'> = {}): Promise<PreflightResult> {
    const r = await this.barrier.compactWith('user', {
      signal: opts.signal ?? new AbortController().signal,
      cutBefore: entryId,
      ...(opts.focus === undefined ? {} : { focus: opts.focus }),
    });
    await this.saveIntents();
    return r;
  }

  /** A checkpoint the user asked for (`/checkpoint`, `/milestone`, `/pivot`); milestone and pivot record their intents. */
  async checkpoint(kind: CheckpointKind, note?: string): Promise<string> {
    const a = this.agentOrUndefined;
    const id = a !== undefined ? await a.recordCheckpoint(kind, note) : await this.appendCheckpoint(kind, note);
    await this.saveIntents();
    return id;
  }

  private async appendCheckpoint(kind: CheckpointKind, note?: string): Promise<string> {
    const store = this.parts.store;
    const checkpointId = this.ids.next('ck_');
    const ts = new Date(this.clock.now()).toISOString();
    await store.append({
      type: 'checkpoint',
      id: this.ids.next('e_'),
      parentId: store.leafId(),
      timestamp: ts,
      checkpointId,
      kind,
      ...(note === undefined ? {} : { note }),
    });
    if (kind === 'milestone' || kind === 'plan_pivot') this.parts.triggers.recordIntent(kind, checkpointId);
    return checkpointId;
  }

  get snapshots(): FileSnapshots {
    return this.parts.snapshots;
  }

  private rewindDeps(): Parameters<typeof rewindSession>[0] {
    return { store: this.parts.store, snapshots: this.parts.snapshots, ids: this.ids, clock: this.clock };
  }

  /** Switches to another model (its settings validated against it), with the mandatory protective handoff when it has less room; counts follow its tokenizer. */
  async switchModel(model: ModelConfig, signal?: AbortSignal, settings = this.config?.settings): Promise<SwitchResult> {
    this.parts.secrets.push(...keysOf(model));
    const target = resolveTarget(model, settings, this.config?.env);
    const chat = withCacheKey(target.chat, chatCacheKey(this.parts.store.header.id));
    const r = await this.agent.switchModel({ ...target, chat, cache: this.parts.caches.forModel(target.chat.model) }, signal);
    await this.saveIntents();
    return r;
  }

  /** The idle trigger: runs the compaction that is due, if any. */
  async noteIdle(signal?: AbortSignal): Promise<void> {
    await this.agent.noteIdle(undefined, signal);
    await this.saveIntents();
  }

  /** What the meter, `/budget`, the status bar and `capsule budget` show: the next request as this session would send it. */
  basis(): BudgetBasis {
    const a = this.agentOrUndefined;
    if (a === undefined) {
      // openOffline is the only way to a session without an agent, and it always sets the offline model.
      const o = this.offline;
      if (o === undefined) throw new Error('this session has neither an agent nor a model to measure with');
      return {
        model: o.model,
        provider: o.provider,
        tools: o.tools ?? [],
        resolved: o.resolved,
        cache: this.parts.caches.forModel(o.model.model),
        system: DEFAULT_SYSTEM_PROMPT,
      };
    }
    const m = a.currentModel;
    return {
      model: { model: m.chat.model, contextWindow: m.contextWindow, maxOutputTokens: m.maxOutputTokens, source: m.windowSource ?? 'provider' },
      provider: m.chat.provider,
      tools: this.tools.schemas(),
      resolved: a.settings,
      cache: this.parts.caches.forModel(m.chat.model),
      system: this.config?.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    };
  }

  budget(now = this.clock.now()): Budget {
    const b = budgetOfLeaf(this.parts.store, this.basis(), now);
    const i = this.instructions;
    if (i === undefined) return b;
    return {
      ...b,
      mode: i.mode,
      ...(i.sources.length === 0 ? {} : { instructions: instructionReport(i.sources, (t) => this.basis().cache.exactTokensOfText(t), b.contextWindow).files }),
    };
  }

  /** The subagent runs of the active branch (docs/subagents.md): what `/budget` lists; their tokens are never in the parent's budget. */
  subagentRuns(): SubagentRun[] {
    const store = this.parts.store;
    return activeSubagentRunsOf(store.tree);
  }

  /** The budget another branch would have (where a rewind would land). */
  budgetOf(branch: readonly Entry[], now = this.clock.now()): Budget {
    return budgetOf(branch, this.basis(), now);
  }

  /** The meter's categories of a branch's model input (a compaction card's before or after). */
  categories(branch: readonly Entry[]): TokenCategories {
    return categoriesOf(branch, this.basis());
  }

  /** Writes the pending intents beside the session; saves run one after another, a failure only goes to the log. */
  saveIntents(): Promise<void> {
    const p = this.parts;
    const state = p.triggers.toJSON();
    // Another window owns a read-only session's intents; a session that never had any gets no file.
    if (p.store.readOnly || (!p.intentsSaved && state.pending.length === 0)) return this.#saving;
    p.intentsSaved = true;
    const next = this.#saving.then(() => writeIntents(p.intentsFile, state));
    this.#saving = next.catch((err: unknown) =>
      this.parts.logger?.log('warn', `Pending compaction intents were not saved: ${err instanceof Error ? err.message : String(err)}`),
    );
    return this.#saving;
  }

  /** Waits for the running turn (cancel it first to stop sooner), saves the intents, then releases the session file if this session opened it. */
  async close(): Promise<void> {
    await this.agentOrUndefined?.idle();
    // Whatever the commands left running (kept background jobs included) stops with the session.
    for (const f of this.#onClose.splice(0)) f();
    if (this.tools instanceof TaskToolHost) await this.tools.settle();
    const t = (this.tools instanceof TaskToolHost ? this.tools.inner : this.tools) as ToolHost & { dispose?: () => Promise<void> };
    if (t instanceof WorkspaceToolHost || typeof t.dispose === 'function') await t.dispose?.();
    this.parts.snapshots.close();
    await this.saveIntents();
    // Upper bounds given while the tokenizer's table was not built are not kept: count exactly once now (docs/behaviour.md#counted-once).
    if (!this.parts.store.readOnly) completeCounts(this.parts.store, () => this.basis(), this.clock.now());
    await this.parts.counts.flush();
    if (this.parts.ownsStore) await this.parts.store.close();
  }
}
