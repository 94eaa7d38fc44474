// An imported session continues on the model the user configured: no request (turn, summary, handoff) names the transcript's model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { main } from '../../../src/cli/main.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import type { ChatBody } from '../../fakes/openaiServer.js';
import { chat, edgeRig } from '../cli/edgeRig.js';

const DIR = join(__dirname, '..', '..', 'fixtures', 'import');

/** Imported exchanges of a long session, answered by the transcript's model. */
async function pad(session: string, model: string): Promise<void> {
  const store = await JsonlSessionStore.open(session);
  let leaf = store.leafId();
  const add = async (e: Record<string, unknown> & { type: string }): Promise<void> => {
    const id = `pad_${store.entries().length}`;
    await store.append({ ...e, id, parentId: leaf, timestamp: '2025-01-02T00:00:00.000Z' } as Entry);
    leaf = id;
  };
  const body = Array.from({ length: 300 }, (_, i) => `padding line ${i}: lorem ipsum dolor sit amet`).join('\n');
  for (let n = 1; n <= 6; n++) {
    await add({
      type: 'assistant',
      content: '',
      model,
      toolCalls: [{ id: `pad_call_${n}`, name: 'read_file', arguments: JSON.stringify({ path: `padding/${n}.txt` }) }],
    });
    await add({ type: 'tool_result', toolCallId: `pad_call_${n}`, toolName: 'read_file', content: body, isError: false });
  }
  await add({ type: 'assistant', content: 'Read them all.', model, toolCalls: [] });
  await store.close();
}

for (const [file, transcriptModel] of [
  ['claude-code.jsonl', 'claude-'],
  ['codex.jsonl', 'gpt-'],
] as const) {
  test(`import ${file} + continue: the server sees requests only for the configured model, none for the transcript's`, async (t) => {
    const rig = await edgeRig(t, { window: 8_192 });
    const lines: string[] = [];
    assert.equal(await main(['import', join(DIR, file), '-o', rig.session], (s) => lines.push(s)), 0, lines.join('\n'));
    // A long transcript, as real ones are: far over the 8k window, so continuing must compact first.
    await pad(rig.session, transcriptModel === 'claude-' ? 'claude-sonnet-4-5-20250929' : 'gpt-5-codex');
    rig.server.onMatch({ summary: true }, { text: '## Goal\n- continue the imported task\n\n## Progress\n- imported\n\n## Next Steps\n- carry on' });
    const r = await chat(rig, 'fake-model', 'continue');
    assert.equal(r.code, 0, r.lines.join('\n'));
    const models = rig.server.chatRequests.map((q) => (q.body as ChatBody).model);
    assert.ok(models.length >= 1);
    assert.deepEqual([...new Set(models)], ['fake-model'], `requests named ${[...new Set(models)].join(', ')}`);
    assert.ok(!models.some((m) => m.startsWith(transcriptModel)));
    assert.ok(
      rig.server.chatRequests.some((q) => q.body !== undefined && (q.body as ChatBody).tool_choice === 'none'),
      'the continuation compacted the long transcript first',
    );
  });
}
