// Random session trees for the property tests: the steps they share (answers, tool results, rewinds, undo/redo, capsules) as fast-check arbitraries and as moves on a SessionTree.
import fc from 'fast-check';
import type { Entry } from '../../src/engine/transcript/schema.js';
import { SessionTree } from '../../src/engine/transcript/tree.js';

/** An entry as written, before it gets its id, parent and time (a distributive Omit, so each kind keeps its own fields). */
export type Draft = Entry extends infer E ? (E extends Entry ? Omit<E, 'id' | 'parentId' | 'timestamp'> : never) : never;

/** The steps every random tree takes; each test adds its own kinds of step beside them. */
export type SharedStep =
  | { readonly k: 'answer' | 'result' | 'checkpoint' | 'model' }
  | { readonly k: 'rewind'; readonly back: number }
  | { readonly k: 'toggle'; readonly back: number; readonly redo: boolean };

/** A rewind up to `maxBack` entries back along the branch. */
export const rewindStep = (maxBack: number): fc.Arbitrary<{ readonly k: 'rewind'; readonly back: number }> =>
  fc.record({ k: fc.constant('rewind' as const), back: fc.nat(maxBack) });

/** Undo or redo of one of the branch's three latest capsules. */
export const toggleStep: fc.Arbitrary<{ readonly k: 'toggle'; readonly back: number; readonly redo: boolean }> = fc.record({
  k: fc.constant('toggle' as const),
  back: fc.nat(2),
  redo: fc.boolean(),
});

/** A session tree grown step by step: entries `e1`, `e2`, … one tick apart, under the leaf unless told otherwise. */
export class TreeBuilder {
  readonly tree = new SessionTree();
  /** How many entries so far (the next one is `e${n + 1}`). */
  n = 0;

  constructor(private readonly tickMs = 1000) {}

  add(e: Draft, parentId: string | null = this.tree.leafId): string {
    this.n++;
    const id = `e${this.n}`;
    this.tree.add({ ...e, id, parentId, timestamp: new Date(1_700_000_000_000 + this.n * this.tickMs).toISOString() } as Entry);
    return id;
  }

  /** The entry `back` places before the leaf on the current branch (the root when the branch is shorter). */
  back(back: number): Entry | undefined {
    const branch = this.tree.branch();
    return branch[Math.max(0, branch.length - 1 - back)];
  }

  /** A capsule under the leaf; what is not given is a plain full-quality user compaction. */
  capsule(fields: { readonly firstKeptEntryId: string | null; readonly checkpointId: string } & Partial<Extract<Draft, { type: 'capsule' }>>): void {
    this.add({
      type: 'capsule',
      summary: `summary ${this.n}`,
      pinnedEntryIds: [],
      tokensBefore: 1000,
      tokensAfter: 300,
      trigger: 'user',
      level: 0,
      quality: 'full',
      truncateResults: false,
      details: {},
      ...fields,
    });
  }

  step(o: SharedStep): void {
    switch (o.k) {
      case 'answer':
        this.add({ type: 'assistant', content: `answer ${this.n}`, toolCalls: [] });
        break;
      case 'result':
        // The answer to the call the entry before made.
        this.add({ type: 'tool_result', toolCallId: `c${this.n - 1}`, toolName: 'read_file', content: `result ${this.n} `.repeat(3), isError: false });
        break;
      case 'checkpoint':
        this.add({ type: 'checkpoint', checkpointId: `ck_${this.n}`, kind: 'auto' });
        break;
      case 'model':
        this.add({ type: 'model_change', provider: 'p', model: `m${this.n}`, contextWindow: 64_000, maxOutputTokens: 4000 });
        break;
      case 'rewind': {
        const target = this.back(o.back);
        if (target !== undefined) this.add({ type: 'leaf', targetId: target.id });
        break;
      }
      case 'toggle': {
        // Undo or redo one of the latest capsules of the branch (any of them, in or out of force).
        const capsules = this.tree.branch().filter((e) => e.type === 'capsule');
        const c = capsules[capsules.length - 1 - o.back];
        if (c?.type === 'capsule') this.add({ type: 'compaction_undo', capsuleId: c.id, checkpointId: c.checkpointId, action: o.redo ? 'redo' : 'undo' });
        break;
      }
    }
  }
}
