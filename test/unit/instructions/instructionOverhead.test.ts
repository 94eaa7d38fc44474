// The window-derived compaction defaults leave room for the instruction block (files, skill index, mode) that every request's system prompt carries, as they do for MCP schemas.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { KEEP_SHARE } from '../../../src/engine/tokens/windowDefaults.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { openSession, tempDir } from '../agent/agentHelpers.js';
import { openWithInstructions, put } from './instructionHelpers.js';

test('at 16k, a 2,000-token AGENTS.md shrinks the derived keepRecent by about its size; explicit settings still win; no files, no change', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 16_384 });
  t.after(() => server.close());
  const bare = join(dir, 'bare');
  const rich = join(dir, 'rich');
  await put(bare, 'README.md', 'x\n');
  // ~2,000 tokens of rules, all different words so no tokenizer merges them away.
  await put(rich, 'AGENTS.md', Array.from({ length: 250 }, (_, i) => `- rule ${i}: keep module ${i} small.`).join('\n'));
  const base = { window: 16_384, maxOutput: 2_000, settings: {} };
  const noFiles = await openWithInstructions(server, bare, bare, { ...base, sessionPath: join(dir, 'bare.jsonl') });
  const withFiles = await openWithInstructions(server, rich, rich, { ...base, sessionPath: join(dir, 'rich.jsonl') });
  const pinned = await openWithInstructions(server, rich, rich, { ...base, sessionPath: join(dir, 'pinned.jsonl'), settings: { keepRecentTokens: 3_000 } });
  const noLayer = await openSession(server, bare, { ...base, sessionPath: join(dir, 'plain.jsonl') });
  const keep = (o: typeof noFiles): number => o.session.agent.settings.settings.keepRecentTokens;
  const [k0, k1, k2, k3] = [keep(noFiles), keep(withFiles), keep(pinned), keep(noLayer)];
  for (const o of [noFiles, withFiles, pinned, noLayer]) await o.session.close();
  assert.equal(k0, k3, 'a workspace without instruction files derives what a session without the layer does');
  assert.ok(k1 < k0, `keepRecent with AGENTS.md ${k1} < without ${k0}`);
  // keepRecent is a share of the room left after the fixed overhead: the file's ≥ 2,000 tokens take that share off it.
  assert.ok(k0 - k1 >= Math.floor(KEEP_SHARE * 2_000), `it shrank by its share of what the file takes (${k0 - k1})`);
  assert.equal(k2, 3_000, 'a value the user set is never derived');
});
