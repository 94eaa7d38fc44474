// The plan shown above the composer as a running figure: the latest capsule's plan, then each successful update_plan call, folded as entries are appended.
import { lineOf, type BranchLine } from '../transcript/branchLine.js';
import type { Entry } from '../transcript/schema.js';
import type { SessionTree } from '../transcript/tree.js';
import { ledgerFromDetails } from './ledger.js';
import { parsePlanArgs, UPDATE_PLAN_TOOL_NAME, type Plan } from './taskPlan.js';

/**
 * Equal to `planOfBranch(tree.branch())` (ledger.ts) without walking the branch each time it is read: it folds the
 * entries the branch line gained since the last read, and after a leaf move starts again from the latest capsule.
 */
export class PlanFigure {
  readonly #line: BranchLine;
  #generation = -1;
  #done = 0;
  #plan: Plan | null = null;
  /** update_plan calls since the latest capsule: call id → its place among them and its arguments. */
  #calls = new Map<string, { readonly order: number; readonly args: string }>();
  #order = 0;
  /** The place of the call whose plan is in force (-1: the capsule's). */
  #inForce = -1;

  constructor(tree: SessionTree) {
    this.#line = lineOf(tree);
  }

  plan(): Plan | null {
    const line = this.#line;
    if (line.generation !== this.#generation) {
      this.#generation = line.generation;
      // Nothing before the latest capsule counts: its ledger carries the plan of that moment.
      this.#done = line.lastCapsule()?.position ?? 0;
      this.#reset(null);
    }
    for (const n = line.length; this.#done < n; this.#done++) {
      const e = line.at(this.#done);
      if (e !== undefined) this.#add(e);
    }
    return this.#plan;
  }

  #reset(plan: Plan | null): void {
    this.#plan = plan;
    this.#calls = new Map();
    this.#order = 0;
    this.#inForce = -1;
  }

  #add(e: Entry): void {
    if (e.type === 'capsule') this.#reset(ledgerFromDetails(e.details)?.plan ?? null);
    else if (e.type === 'assistant') {
      for (const c of e.toolCalls) if (c.name === UPDATE_PLAN_TOOL_NAME) this.#calls.set(c.id, { order: this.#order++, args: c.arguments });
    } else if (e.type === 'tool_result' && !e.isError) {
      // The latest call in call order wins (taskPlan.ts latestPlan), whatever order the results arrive in.
      const call = this.#calls.get(e.toolCallId);
      if (call === undefined || call.order < this.#inForce) return;
      const parsed = parsePlanArgs(call.args);
      if (!parsed.ok) return;
      this.#plan = parsed.plan;
      this.#inForce = call.order;
    }
  }
}

const figures = new WeakMap<SessionTree, PlanFigure>();

/** The one plan figure of a tree. */
export function planFigureOf(tree: SessionTree): PlanFigure {
  let f = figures.get(tree);
  if (f === undefined) {
    f = new PlanFigure(tree);
    figures.set(tree, f);
  }
  return f;
}
