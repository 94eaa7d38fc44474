// Commands that never count tokens never build a BPE table; a command that counts builds only its model's encoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../src/cli/main.js';
import { loadedEncodings } from '../../../src/node/tokenCounter.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';

// node's test runner gives every test file its own process, so nothing else has counted here before.
test("--help, verify, show and import load no encoding; budget loads only the active model's", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-lazy-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const session = join(dir, 'chat.jsonl');
  const store = await JsonlSessionStore.open(session, { create: { id: 's_lazy', cwd: dir } });
  await store.append({ type: 'user', id: 'e1', parentId: null, timestamp: '2026-01-01T00:00:00.000Z', content: 'hello there' });
  await store.append({ type: 'assistant', id: 'e2', parentId: 'e1', timestamp: '2026-01-01T00:00:01.000Z', content: 'hi', toolCalls: [] });
  await store.close();
  const messages = join(dir, 'messages.json');
  await writeFile(
    messages,
    JSON.stringify([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
    ]),
  );
  const lines: string[] = [];
  const out = (s: string): void => void lines.push(s);

  assert.equal(await main(['--help'], out), 0);
  assert.equal(await main(['verify', session], out), 0);
  await main(['show', session], out).catch(() => 1); // no capsule yet: an error line is fine, a table is not
  assert.equal(await main(['import', messages, '-o', join(dir, 'imported.jsonl')], out), 0);
  assert.deepEqual(loadedEncodings(), [], `loaded by: ${lines.join(' | ')}`);

  assert.equal(await main(['budget', session, '--model', 'gpt-4o'], out), 0);
  assert.deepEqual(loadedEncodings(), ['o200k_base']);
});
