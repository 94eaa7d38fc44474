// Property (docs/session-format.md#subagents): however parent and child entries interleave in the file, with rewinds and capsules, the parent's model input holds no child entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';
import { reachableTail } from '../../../src/engine/transcript/tail.js';

type Op =
  | { readonly kind: 'user' }
  | { readonly kind: 'task'; readonly children: number }
  | { readonly kind: 'child'; readonly pick: number; readonly what: 'user' | 'assistant' | 'result' | 'capsule' }
  | { readonly kind: 'rewind'; readonly pick: number }
  | { readonly kind: 'capsule'; readonly pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'user' }),
  fc.integer({ min: 1, max: 3 }).map((children): Op => ({ kind: 'task', children })),
  fc
    .record({ pick: fc.nat(), what: fc.constantFrom('user' as const, 'assistant' as const, 'result' as const, 'capsule' as const) })
    .map((r): Op => ({ kind: 'child', ...r })),
  fc.nat().map((pick): Op => ({ kind: 'rewind', pick })),
  fc.nat().map((pick): Op => ({ kind: 'capsule', pick })),
);

const ts = '2026-01-01T00:00:00.000Z';

/** Plays the ops into a tree the way the agent and its children append: children own leaves, the parent's is the tree's. */
function play(ops: readonly Op[]): { tree: SessionTree; childIds: Set<string> } {
  const tree = new SessionTree();
  const childIds = new Set<string>();
  const children: { id: string; callId: string; leaf: string | null }[] = [];
  let n = 0;
  const id = (): string => `e${n++}`;
  /** The parent appends at the tree's leaf, as the agent does. */
  const parentAppend = (e: Record<string, unknown> & { readonly type: Entry['type'] }): Entry => {
    const entry = { ...e, id: id(), parentId: tree.leafId, timestamp: ts } as Entry;
    assert.ok(tree.add(entry));
    return entry;
  };
  for (const op of ops) {
    if (op.kind === 'user') parentAppend({ type: 'user', content: 'parent asks' });
    else if (op.kind === 'task') {
      const calls = Array.from({ length: op.children }, (_, i) => ({ id: `call${n}_${i}`, name: 'task', arguments: '{}' }));
      parentAppend({ type: 'assistant', content: '', toolCalls: calls });
      for (const c of calls) children.push({ id: `sa_${c.id}`, callId: c.id, leaf: null });
      for (const c of calls) parentAppend({ type: 'tool_result', toolCallId: c.id, toolName: 'task', content: 'child answer', isError: false });
    } else if (op.kind === 'child' && children.length > 0) {
      const c = children[op.pick % children.length];
      if (c === undefined) continue;
      const base = { id: id(), parentId: c.leaf, timestamp: ts, subagent: { id: c.id, toolCallId: c.callId } };
      const entry: Entry =
        op.what === 'user'
          ? { ...base, type: 'user', content: 'CHILD-ONLY prompt' }
          : op.what === 'assistant'
            ? { ...base, type: 'assistant', content: 'CHILD-ONLY thought', toolCalls: [] }
            : op.what === 'result'
              ? { ...base, type: 'tool_result', toolCallId: `x${n}`, toolName: 'read_file', content: 'CHILD-ONLY file', isError: false }
              : {
                  ...base,
                  type: 'capsule',
                  summary: 'CHILD-ONLY capsule',
                  firstKeptEntryId: c.leaf,
                  pinnedEntryIds: [],
                  tokensBefore: 10,
                  tokensAfter: 5,
                  trigger: 'auto_threshold',
                  level: 0,
                  quality: 'full',
                  truncateResults: false,
                  checkpointId: `ck_${n}`,
                  details: {},
                };
      assert.ok(tree.add(entry));
      childIds.add(entry.id);
      c.leaf = entry.id;
    } else if (op.kind === 'rewind') {
      const targets = tree.entries().filter((e) => e.type !== 'leaf' && e.subagent === undefined);
      const target = targets.length === 0 ? null : (targets[op.pick % targets.length]?.id ?? null);
      assert.ok(tree.add({ type: 'leaf', id: id(), parentId: tree.leafId, timestamp: ts, targetId: target }));
    } else if (op.kind === 'capsule') {
      const branch = tree.branch();
      const kept = branch.length === 0 ? null : (branch[op.pick % branch.length]?.id ?? null);
      parentAppend({
        type: 'capsule',
        summary: 'parent capsule',
        firstKeptEntryId: kept,
        pinnedEntryIds: [],
        tokensBefore: 10,
        tokensAfter: 5,
        trigger: 'user',
        level: 0,
        quality: 'full',
        truncateResults: false,
        checkpointId: `ck_p${n}`,
        details: {},
      });
    }
  }
  return { tree, childIds };
}

test("the parent's model input never contains a child's entry", () => {
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
      const { tree, childIds } = play(ops);
      const leaf = tree.leafId;
      assert.ok(leaf === null || !childIds.has(leaf), 'a child entry never becomes the session leaf');
      for (const branch of [tree.branch(), reachableTail(tree, tree.leafId)]) {
        assert.ok(branch.every((e) => !childIds.has(e.id)));
        const input = buildModelInput(branch, 'system');
        assert.ok(input.entryIds.every((i) => !childIds.has(i)));
        assert.ok(input.messages.every((m) => !m.content.includes('CHILD-ONLY')));
      }
      // Reloaded from the file's order, the same holds.
      const again = SessionTree.from(tree.entries());
      assert.equal(again.leafId, leaf);
    }),
    { numRuns: 300, seed: Number(process.env.CAPSULE_PBT_SEED ?? 20261201) },
  );
});
