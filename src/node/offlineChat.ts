// A chat without a model, still behind a facade: its conversation can be read, measured, rewound and switched between branches (no files: there are no snapshots without the agent).
import { activeSubagentRunsOf, type SubagentRun } from '../engine/agent/subagentResult.js';
import type { Budget } from '../engine/tokens/budget.js';
import type { RewindOptions } from './agentSession.js';
import { StoreChat } from './chatReads.js';
import type { JsonlSessionStore } from './jsonlStore.js';
import { nodeClock, nodeIds } from './nodeClock.js';
import { budgetOfLeaf, type BudgetBasis } from './sessionBudget.js';
import {
  previewRewind,
  rewindSession,
  switchBranchSession,
  type RewindDone,
  type RewindFailure,
  type RewindPreview,
  type SwitchDone,
} from './sessionRewind.js';

/** The moves of a chat's leaf every facade makes, with a model or without (docs/rewind.md). */
export interface LeafMoves {
  previewRewind(ref: string): Promise<RewindPreview | RewindFailure>;
  rewind(ref: string, opts?: RewindOptions): Promise<RewindDone | RewindFailure>;
  switchBranch(entryId: string): Promise<SwitchDone | RewindFailure>;
}

/**
 * A chat opened without a model can still rewind and switch branches: its conversation only, since without the
 * facade's snapshots there are no files to restore. Its figures are measured against a basis the caller gives (the
 * settings' model).
 */
export class OfflineChat extends StoreChat implements LeafMoves {
  /** No model: no turns, compactions or checkpoints (ChatFacade is the one with them). */
  readonly online = false;

  constructor(store: JsonlSessionStore) {
    super(store);
  }

  #deps(): Parameters<typeof rewindSession>[0] {
    return { store: this.store, snapshots: undefined, ids: nodeIds, clock: nodeClock };
  }

  previewRewind(ref: string): Promise<RewindPreview | RewindFailure> {
    return previewRewind(this.#deps(), ref);
  }

  rewind(ref: string, opts: RewindOptions = {}): Promise<RewindDone | RewindFailure> {
    return rewindSession(this.#deps(), ref, opts);
  }

  switchBranch(entryId: string): Promise<SwitchDone | RewindFailure> {
    return switchBranchSession(this.#deps(), entryId);
  }

  /** The figures from the leaf (no walk from the root), against `basis`. */
  budget(basis: BudgetBasis, now: number): Budget {
    return budgetOfLeaf(this.store, basis, now);
  }

  /** The subagent runs of the active branch, listed by `/budget` with their own cost. */
  subagentRuns(): SubagentRun[] {
    return activeSubagentRunsOf(this.store.tree);
  }
}
