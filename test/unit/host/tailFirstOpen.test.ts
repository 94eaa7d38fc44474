// Opening a long chat: the view's first snapshot (chat and meter) comes from the tail, before the file is indexed; once indexed, the view shows the whole chat, as a full load would.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { loadSessionFile, tailFirstHooks } from '../../../src/node/jsonlStore.js';
import type { HostToWebview } from '../../../src/protocol/messages.js';
import { assistant, capsule, headerLine, line, user } from '../node/storeHelpers.js';
import { createHarness, until } from './hostHarness.js';

type Snapshot = Extract<HostToWebview, { type: 'snapshot' }>;

test('the first snapshot shows the tail and the meter before indexing ends; the last one shows the whole chat', async (t) => {
  const h = createHarness({ workspace: true });
  const dir = join(h.storage, 'sessions');
  mkdirSync(dir, { recursive: true });
  const entries: Entry[] = [];
  let parent: string | null = null;
  const add = (e: Entry): void => {
    entries.push(e);
    parent = e.id;
  };
  for (let i = 0; i < 300; i++) {
    add(user(`u${i}`, parent, `ask ${i} ${'context '.repeat(30)}`));
    add(assistant(`a${i}`, parent));
  }
  add(capsule('k1', parent, 'u298'));
  add({ type: 'system_update', id: 'b1', parentId: parent, timestamp: '2025-01-01T00:00:00.000Z', mode: 'base', content: 'the base after k1' });
  add(user('u_last', parent));
  const path = join(dir, 's_test.jsonl');
  writeFileSync(path, `${[headerLine(), ...entries.map(line)].join('\n')}\n`);
  const full = await loadSessionFile(path);

  let release = (): void => undefined;
  const gate = new Promise<void>((r) => (release = r));
  let indexing = false;
  tailFirstHooks.beforeIndex = async () => {
    indexing = true;
    await gate;
  };
  t.after(() => {
    tailFirstHooks.beforeIndex = undefined;
  });
  await h.start();
  const v = h.openView();
  try {
    const snapshots = (): Snapshot[] => v.messages().filter((m): m is Snapshot => m.type === 'snapshot');
    await until(() => snapshots().some((s) => s.transcript.items.some((i) => i.id === 'u_last')), 'a snapshot with the last ask');
    assert.equal(indexing, true, 'indexing has started and is held');
    const first = snapshots().find((s) => s.transcript.items.some((i) => i.id === 'u_last'));
    assert.ok(first);
    // The tail: from the capsule's first kept entry to the leaf (the base after the capsule shows no item).
    assert.deepEqual(
      first.transcript.items.map((i) => i.id),
      ['u298', 'a298', 'u299', 'a299', 'k1', 'u_last'],
    );
    assert.ok(v.messages().some((m) => m.type === 'budget') || first.budget !== null, 'the meter has figures before indexing ends');

    release();
    await until(() => snapshots().at(-1)?.session?.entries === full.tree.size, 'the snapshot of the indexed chat');
    const last = snapshots().at(-1);
    assert.ok(last);
    const expected = full.tree
      .branch()
      .filter((e) => e.type !== 'system_update')
      .map((e) => e.id)
      .slice(-200);
    assert.deepEqual(
      last.transcript.items.map((i) => i.id),
      expected,
    );
    assert.equal(last.transcript.hasMore, true);
    assert.equal(last.session?.problems, 0);
  } finally {
    release();
    v.dispose();
    await h.stop();
  }
});
