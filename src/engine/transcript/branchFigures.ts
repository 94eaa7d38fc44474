// Figures of a whole branch kept as running values: extended by each entry appended at the leaf, rebuilt only when the leaf moves.
import type { CapsuleEntry, Entry, ModelChangeEntry, SystemUpdateEntry } from './schema.js';
import { isSubagentEntry } from './subagentRef.js';

/**
 * What the meter and the turn loop read from the whole active branch. Each is a fold over the branch in order, so
 * an entry appended at the leaf updates it in O(1); only a leaf move (rewind, branch switch) walks the branch again.
 */
export interface BranchFigures {
  readonly capsules: number;
  /** User messages, answers and tool results. */
  readonly messages: number;
  /** User messages. */
  readonly turns: number;
  /** What the capsules in force took out of the model input (compactionSavings of the branch). */
  readonly saved: number;
  /** The latest model_change entry: the model in force. */
  readonly model?: ModelChangeEntry;
  /** The latest `base` system update: the cache epoch in force. */
  readonly epochBase?: SystemUpdateEntry;
  /** The latest capsule, undone or not (an undone one is still on the branch). */
  readonly lastCapsule?: CapsuleEntry;
  /** The latest system update that records instruction sources (the stamps in force). */
  readonly lastStamped?: SystemUpdateEntry;
  /** Calls of the `skill` tool: none means no skill was ever loaded on the branch, so nothing needs a walk to find one. */
  readonly skillCalls: number;
}

/** A fold of BranchFigures: `add` each entry of a branch in order (root first). */
export class FiguresFold implements BranchFigures {
  capsules = 0;
  messages = 0;
  turns = 0;
  saved = 0;
  skillCalls = 0;
  model: ModelChangeEntry | undefined;
  epochBase: SystemUpdateEntry | undefined;
  lastCapsule: CapsuleEntry | undefined;
  lastStamped: SystemUpdateEntry | undefined;
  /** Capsule id → the tokens it saved, for the capsules on the branch. */
  readonly #savedBy = new Map<string, number>();
  /** Capsule id → its latest undo event on the branch. */
  readonly #toggled = new Map<string, 'undo' | 'redo'>();

  static of(branch: Iterable<Entry>): FiguresFold {
    const f = new FiguresFold();
    for (const e of branch) f.add(e);
    return f;
  }

  /** An entry the figures only count (a user message, a tool result, an answer without a `skill` call), known by its type alone. */
  count(type: 'user' | 'assistant' | 'tool_result'): void {
    this.messages++;
    if (type === 'user') this.turns++;
  }

  add(e: Entry): void {
    switch (e.type) {
      case 'capsule': {
        this.capsules++;
        this.lastCapsule = e;
        const d = Math.max(0, e.tokensBefore - e.tokensAfter);
        this.#savedBy.set(e.id, d);
        if (this.#toggled.get(e.id) !== 'undo') this.saved += d;
        break;
      }
      case 'compaction_undo': {
        const was = this.#toggled.get(e.capsuleId);
        this.#toggled.set(e.capsuleId, e.action);
        const d = this.#savedBy.get(e.capsuleId);
        if (d === undefined || (was === 'undo') === (e.action === 'undo')) break;
        this.saved += e.action === 'undo' ? -d : d;
        break;
      }
      case 'user':
        this.turns++;
        this.messages++;
        break;
      case 'assistant':
        this.messages++;
        // The instruction layer's tool name (engine/instructions/skills.ts SKILL_TOOL), written out to keep this module a leaf.
        for (const c of e.toolCalls) if (c.name === 'skill') this.skillCalls++;
        break;
      case 'tool_result':
        this.messages++;
        break;
      case 'model_change':
        this.model = e;
        break;
      case 'system_update':
        if (e.mode === 'base') this.epochBase = e;
        if (e.sources !== undefined) this.lastStamped = e;
        break;
      default:
        break;
    }
  }

  /** The figures as a frozen copy (the fold goes on changing). */
  snapshot(): BranchFigures {
    return {
      capsules: this.capsules,
      messages: this.messages,
      turns: this.turns,
      saved: this.saved,
      skillCalls: this.skillCalls,
      ...(this.model === undefined ? {} : { model: this.model }),
      ...(this.epochBase === undefined ? {} : { epochBase: this.epochBase }),
      ...(this.lastCapsule === undefined ? {} : { lastCapsule: this.lastCapsule }),
      ...(this.lastStamped === undefined ? {} : { lastStamped: this.lastStamped }),
    };
  }
}

/**
 * The running figures of a tree's active branch. `appended` is told of every accepted entry: one that extends the
 * leaf folds in; anything else that moves the leaf (a leaf move, a branch from an earlier entry) drops the fold, and
 * the next read rebuilds it from `walk` (the branch, root first). A subagent's entries never touch the leaf.
 */
export class RunningFigures {
  #fold: FiguresFold | undefined = new FiguresFold();

  /** `walk` folds the active branch, root first, into a new fold. */
  constructor(private readonly walk: (fold: FiguresFold) => void) {}

  appended(e: Entry, leafBefore: string | null): void {
    if (isSubagentEntry(e) || this.#fold === undefined) return;
    if (e.type !== 'leaf' && e.parentId === leafBefore) this.#fold.add(e);
    else this.#fold = undefined;
  }

  /** Entries joined without being read (the compact part of a tree, src/engine/transcript/coldPart.ts): the next read walks. */
  reset(): void {
    this.#fold = undefined;
  }

  /** The figures of the active branch now (a rebuild after a leaf move). */
  get(): BranchFigures {
    if (this.#fold === undefined) {
      const fold = new FiguresFold();
      this.walk(fold);
      this.#fold = fold;
    }
    return this.#fold;
  }
}
