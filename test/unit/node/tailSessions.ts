// Random session files for the tail-first tests: compactions, branches, bad lines, duplicates, torn tails.
import fc from 'fast-check';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import type { SessionLoad } from '../../../src/node/sessionLoad.js';
import { headerLine } from './storeHelpers.js';

export type Op =
  | { readonly k: 'user' | 'answer' | 'calls' | 'result' | 'base' | 'append' | 'blank' | 'badJson' | 'badEntry' | 'orphan' | 'dup' | 'big' }
  | { readonly k: 'capsule'; readonly keep: number; readonly pins: readonly number[]; readonly checkpointFirst?: boolean }
  /** A checkpoint: of the message that follows it (`message`), or one of its own. */
  | { readonly k: 'checkpoint'; readonly message: boolean }
  | { readonly k: 'rewind'; readonly back: number }
  | { readonly k: 'switch'; readonly pick: number }
  | { readonly k: 'toggle'; readonly redo: boolean };

export const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom<Op>({ k: 'user' }, { k: 'answer' }, { k: 'calls' }, { k: 'result' }, { k: 'big' }) },
  { weight: 2, arbitrary: fc.constantFrom<Op>({ k: 'base' }, { k: 'append' }) },
  { weight: 1, arbitrary: fc.constantFrom<Op>({ k: 'blank' }, { k: 'badJson' }, { k: 'badEntry' }, { k: 'orphan' }, { k: 'dup' }) },
  {
    weight: 2,
    arbitrary: fc.record({ k: fc.constant('capsule' as const), keep: fc.nat(12), pins: fc.array(fc.nat(20), { maxLength: 2 }), checkpointFirst: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('checkpoint' as const), message: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('rewind' as const), back: fc.nat(60) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('switch' as const), pick: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('toggle' as const), redo: fc.boolean() }) },
);

export type Ending = 'none' | 'torn' | 'badLast' | 'noNewline';
export const ending: fc.Arbitrary<Ending> = fc.constantFrom<Ending>('none', 'none', 'torn', 'badLast', 'noNewline');

/** The text of a session file made by `ops`; entries join the current leaf, as the store writes them. */
export function sessionText(ops: readonly Op[], end: Ending): string {
  const lines = [headerLine()];
  const byId = new Map<string, Entry>();
  const order: Entry[] = [];
  let leaf: string | null = null;
  let n = 0;
  const branch = (): Entry[] => {
    const path: Entry[] = [];
    for (let cur = leaf === null ? undefined : byId.get(leaf); cur !== undefined; cur = cur.parentId === null ? undefined : byId.get(cur.parentId))
      path.push(cur);
    return path.reverse();
  };
  type Draft = Entry extends infer E ? (E extends Entry ? Omit<E, 'id' | 'parentId' | 'timestamp'> : never) : never;
  const add = (e: Draft, parentId: string | null = leaf): void => {
    n++;
    const entry = { ...e, id: `e${n}`, parentId, timestamp: new Date(1_700_000_000_000 + n).toISOString() } as Entry;
    lines.push(JSON.stringify(entry));
    byId.set(entry.id, entry);
    order.push(entry);
    leaf = entry.type === 'leaf' ? entry.targetId : entry.id;
  };
  for (const o of ops) {
    const b = branch();
    const at = (back: number): string | undefined => b[Math.max(0, b.length - 1 - back)]?.id;
    switch (o.k) {
      case 'user':
        add({ type: 'user', content: `ask ${n} ✓ ünïcode` });
        break;
      case 'answer':
        // Every other answer reports usage: the Checkpoints tree shows the latest before each message.
        add({ type: 'assistant', content: `answer ${n}`, toolCalls: [], ...(n % 2 === 0 ? { usage: { promptTokens: n * 10, completionTokens: 1 } } : {}) });
        break;
      case 'calls':
        add({ type: 'assistant', content: '', toolCalls: [{ id: `c${n}`, name: 'read_file', arguments: '{}' }] });
        break;
      case 'result':
        add({ type: 'tool_result', toolCallId: `c${n - 1}`, toolName: 'read_file', content: `result ${n}\n`.repeat(5), isError: false });
        break;
      case 'big':
        add({ type: 'tool_result', toolCallId: `c${n - 1}`, toolName: 'read_file', content: `line of a long file ${n}\n`.repeat(300), isError: false });
        break;
      case 'base':
      case 'append':
        add({ type: 'system_update', mode: o.k, content: `${o.k} ${n}` });
        break;
      case 'checkpoint':
        // A message's own checkpoint names the message written next (the store writes them so).
        add({ type: 'checkpoint', checkpointId: `ck_p${n}`, kind: o.message ? 'auto' : 'user', ...(o.message ? { forEntryId: `e${n + 2}` } : {}) });
        if (o.message) add({ type: 'user', content: `ask ${n} after its checkpoint` });
        break;
      case 'capsule':
        // The checkpoint taken before a compaction carries the capsule's checkpoint id.
        if (o.checkpointFirst === true) add({ type: 'checkpoint', checkpointId: `ck_${n + 1}`, kind: 'auto' });
        add({
          type: 'capsule',
          summary: `summary ${n}`,
          firstKeptEntryId: at(o.keep) ?? null,
          pinnedEntryIds: o.pins.flatMap((p) => at(p) ?? []),
          tokensBefore: 10,
          tokensAfter: 5,
          trigger: 'user',
          level: 0,
          quality: 'full',
          truncateResults: false,
          checkpointId: `ck_${n}`,
          details: {},
        });
        break;
      case 'rewind': {
        const target = b[Math.max(0, b.length - 1 - o.back)];
        if (target !== undefined) add({ type: 'leaf', targetId: target.id, reason: 'rewind' });
        break;
      }
      case 'switch': {
        // Another branch's entry (any entry of the file): a branch switch.
        const target = order.filter((e) => e.type !== 'leaf')[o.pick % Math.max(1, order.length)];
        if (target !== undefined) add({ type: 'leaf', targetId: target.id, reason: 'switch' });
        break;
      }
      case 'toggle': {
        const c = b.filter((e) => e.type === 'capsule').pop();
        if (c?.type === 'capsule') add({ type: 'compaction_undo', capsuleId: c.id, checkpointId: c.checkpointId, action: o.redo ? 'redo' : 'undo' });
        break;
      }
      case 'blank':
        lines.push('   ');
        break;
      case 'badJson':
        lines.push('{"type":"user","id":');
        break;
      case 'badEntry':
        lines.push(JSON.stringify({ type: 'user', id: `bad${n}`, parentId: leaf }));
        break;
      case 'orphan':
        lines.push(JSON.stringify({ type: 'user', id: `o${n}`, parentId: 'e_nowhere', timestamp: new Date(0).toISOString(), content: 'lost' }));
        break;
      case 'dup': {
        // A later copy of an earlier id: the full load keeps the first copy.
        const first = order[0];
        if (first !== undefined) lines.push(JSON.stringify({ ...first, content: 'a later copy', parentId: leaf }));
        break;
      }
    }
  }
  let text = `${lines.join('\n')}\n`;
  if (end === 'torn') text += '{"type":"assistant","id":"e_torn","cont';
  if (end === 'badLast') text += 'not json at all\n{"also":"bad"}\n';
  if (end === 'noNewline') text = text.slice(0, -1);
  return text;
}

/** What two loads must agree on. */
export function shape(l: SessionLoad): unknown {
  return {
    header: l.header,
    entries: l.tree.entries(),
    leaf: l.tree.leafId,
    problems: l.problems,
    treeProblems: l.tree.problems,
    bytes: l.bytes,
    goodBytes: l.goodBytes,
    unwritable: l.unwritableReason,
  };
}
