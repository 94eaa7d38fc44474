// What a front end may do with an open chat that has a model, as methods: the engine facade (AgentSession) behind it; OfflineChat (offlineChat.ts) is the one without a model.
import { resolveSettings } from '../engine/config.js';
import type { TurnInput, TurnResult } from '../engine/agent/agentEvents.js';
import type { SwitchResult } from '../engine/agent/turnLoop.js';
import type { PreflightResult } from '../engine/compaction/barrier.js';
import type { UndoAction, UndoPlan } from '../engine/compaction/undo.js';
import type { Budget } from '../engine/tokens/budget.js';
import type { CheckpointKind, Entry } from '../engine/transcript/schema.js';
import type { SubagentRun } from '../engine/agent/subagentResult.js';
import type { AgentSession, CompactOptions, ModelConfig, RewindOptions } from './agentSession.js';
import type { WorkspaceInstructions } from './instructions/workspaceInstructions.js';
import { mcpBudgetOf } from './mcp/sessionMcp.js';
import type { BudgetBasis } from './sessionBudget.js';
import type { RewindDone, RewindFailure, RewindPreview, SwitchDone } from './sessionRewind.js';
import { StoreChat } from './chatReads.js';
import type { LeafMoves } from './offlineChat.js';
import type { FileSnapshots } from './snapshots/fileSnapshots.js';

/**
 * The open chat with a model: turns, compactions, checkpoints, leaf moves, model and settings changes, and what the
 * meter and `/budget` read. The engine's parts (agent, store, barrier) stay behind it.
 */
export class ChatFacade extends StoreChat implements LeafMoves {
  /** A model answers: turns, compactions and checkpoints (OfflineChat has none). */
  readonly online = true;
  readonly #session: AgentSession;

  constructor(session: AgentSession) {
    super(session.store);
    this.#session = session;
  }

  /** The model in use and its provider label (`vscode-lm…` for VS Code's language models). */
  get model(): { readonly model: string; readonly provider: string } {
    const chat = this.#session.agent.currentModel.chat;
    return { model: chat.model, provider: chat.provider };
  }

  /** A turn or a compaction of this chat runs. */
  get busy(): boolean {
    return this.#session.agent.busy;
  }

  /** The idle trigger is on in the settings in force. */
  get compactsOnIdle(): boolean {
    return this.#session.agent.settings.settings.compactOnIdle;
  }

  /** New compaction settings, validated against the model in use; they apply at the next barrier. */
  applySettings(raw: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv): void {
    const m = this.#session.agent.currentModel;
    this.#session.agent.updateSettings(resolveSettings({ raw, env, model: { contextWindow: m.contextWindow, maxOutputTokens: m.maxOutputTokens } }));
  }

  /** Instruction files, skills and the mode, when the chat reads them. */
  get instructions(): WorkspaceInstructions | undefined {
    return this.#session.instructions;
  }

  /** A changed mode or instruction set reaches the model as one system update. */
  syncInstructions(): Promise<void> {
    return this.#session.agent.syncInstructions();
  }

  /** The file snapshots an edit's "Show diff" and a rewind read. */
  get snapshots(): FileSnapshots {
    return this.#session.snapshots;
  }

  turn(input: TurnInput): Promise<TurnResult> {
    return this.#session.turn(input);
  }

  retryTurn(input: { readonly signal: AbortSignal; readonly turnId?: string }): Promise<TurnResult> {
    return this.#session.retryTurn(input);
  }

  compact(opts: CompactOptions = {}): Promise<PreflightResult> {
    return this.#session.compact(opts);
  }

  compactUpTo(entryId: string, opts: Omit<CompactOptions, 'trigger'> = {}): Promise<PreflightResult> {
    return this.#session.compactUpTo(entryId, opts);
  }

  checkpoint(kind: CheckpointKind, note?: string): Promise<string> {
    return this.#session.checkpoint(kind, note);
  }

  previewRewind(ref: string): Promise<RewindPreview | RewindFailure> {
    return this.#session.previewRewind(ref);
  }

  rewind(ref: string, opts: RewindOptions = {}): Promise<RewindDone | RewindFailure> {
    return this.#session.rewind(ref, opts);
  }

  switchBranch(entryId: string): Promise<SwitchDone | RewindFailure> {
    return this.#session.switchBranch(entryId);
  }

  undoCompaction(ref: string, action: UndoAction): Promise<UndoPlan> {
    return this.#session.undoCompaction(ref, action);
  }

  /** Without `settings`, the settings the chat was opened with apply to the new model. */
  switchModel(model: ModelConfig, signal: AbortSignal, settings?: Readonly<Record<string, unknown>>): Promise<SwitchResult> {
    return this.#session.switchModel(model, signal, settings);
  }

  noteIdle(signal: AbortSignal): Promise<void> {
    return this.#session.noteIdle(signal);
  }

  /** What the meter counts with: the model, tools, settings and token cache in use. */
  basis(): BudgetBasis {
    return this.#session.basis();
  }

  budget(): Budget {
    return this.#session.budget();
  }

  /** The subagent runs of the active branch, listed by `/budget` with their own cost. */
  subagentRuns(): SubagentRun[] {
    return this.#session.subagentRuns();
  }

  /** `/budget`'s MCP line (the tools' share of the window), when MCP servers serve this chat. */
  mcpBudget(): string | undefined {
    return mcpBudgetOf(this.#session.tools);
  }

  /** What the settings in force warn about (a value adjusted to fit the model), said once when a chat starts. */
  get settingsWarning(): string | undefined {
    return this.#session.agent.settings.warning;
  }

  /** The budget another branch would have (where a rewind would land). */
  budgetOf(branch: readonly Entry[]): Budget {
    return this.#session.budgetOf(branch);
  }

  /** Waits for the running turn, saves the intents, stops the tools. */
  close(): Promise<void> {
    return this.#session.close();
  }
}
