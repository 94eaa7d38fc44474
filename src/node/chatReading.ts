// A chat without a model, read-only (`capsule budget`): the meter's figures and the subagent runs of a session loaded for reading, without the lock, the writer or the rewind machinery (kept out of this module so the command loads little).
import { activeSubagentRunsOf, type SubagentRun } from '../engine/agent/subagentResult.js';
import type { LoadProblem } from '../engine/ports.js';
import type { Budget } from '../engine/tokens/budget.js';
import type { Entry, SessionHeader } from '../engine/transcript/schema.js';
import type { SessionTree } from '../engine/transcript/tree.js';
import { budgetOfLeaf, type BudgetBasis } from './sessionBudget.js';

/** A session loaded for reading alone (`capsule budget`): no lock, no writer, no moves. */
export class ChatReading {
  readonly header: SessionHeader | undefined;
  readonly problems: readonly LoadProblem[];
  readonly #tree: SessionTree;

  constructor(load: { readonly tree: SessionTree; readonly header: SessionHeader | undefined; readonly problems: readonly LoadProblem[] }) {
    this.#tree = load.tree;
    this.header = load.header;
    this.problems = load.problems;
  }

  branch(): readonly Entry[] {
    return this.#tree.branch();
  }

  /** The figures from the leaf, as the chat's meter computes them. */
  budget(basis: BudgetBasis, now: number): Budget {
    const t = this.#tree;
    return budgetOfLeaf({ get: (id) => t.get(id), leafId: () => t.leafId, figures: () => t.figures() }, basis, now);
  }

  subagentRuns(): SubagentRun[] {
    return activeSubagentRunsOf(this.#tree);
  }
}
