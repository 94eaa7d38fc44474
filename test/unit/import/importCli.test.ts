// `capsule import` end to end for every format: detected, written, verified, compacted (fallback), and the capsule's ledger lists the files, commands and last test run.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../../src/cli/main.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';

const DIR = join(__dirname, '..', '..', 'fixtures', 'import');
const FIXTURES = ['claude-code.jsonl', 'codex.jsonl', 'anthropic.json', 'swe-agent.traj', 'mini-swe-agent.traj.json', 'openai.json'];

/**
 * Two long exchanges after the imported conversation, so a compaction has something worth summarizing: the
 * imported turns and the first exchange are summarized, the second stays as the retained tail.
 */
async function pad(session: string): Promise<void> {
  const store = await JsonlSessionStore.open(session);
  let leaf = store.leafId();
  const add = async (e: Record<string, unknown> & { type: string }): Promise<void> => {
    const id = `pad_${store.entries().length}`;
    await store.append({ ...e, id, parentId: leaf, timestamp: '2025-01-02T00:00:00.000Z' } as Entry);
    leaf = id;
  };
  const body = Array.from({ length: 1800 }, (_, i) => `padding line ${i}: lorem ipsum dolor sit amet`).join('\n');
  for (const n of [1, 2]) {
    await add({
      type: 'assistant',
      content: '',
      toolCalls: [{ id: `pad_call_${n}`, name: 'read_file', arguments: JSON.stringify({ path: `padding/${n}.txt` }) }],
    });
    await add({ type: 'tool_result', toolCallId: `pad_call_${n}`, toolName: 'read_file', content: body, isError: false });
  }
  await store.close();
}

async function cli(...argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(argv, (s) => lines.push(s));
  return { code, out: lines.join('\n') };
}

for (const file of FIXTURES) {
  test(`capsule import ${file}, then compact: the ledger has every changed file, every command and the last test run`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'capsule-import-'));
    t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
    const session = join(dir, 's.jsonl');
    const imported = await cli('import', join(DIR, file), '-o', session);
    assert.equal(imported.code, 0);
    assert.match(imported.out, /^imported \d+ messages \(.+\) as \d+ entries into /);
    assert.match(imported.out, /\n {2}kept: .*\n {2}inferred: .*\n {2}dropped: /);
    assert.equal((await cli('verify', session)).code, 0, 'the imported session verifies');
    await pad(session);
    const compacted = await cli('compact', session, '--fallback', '--trigger', 'user');
    assert.equal(compacted.code, 0, compacted.out);
    const shown = (await cli('show', session)).out;
    const expected = JSON.parse(
      readFileSync(
        join(DIR, file.replace(/\.(jsonl|json|traj|traj\.json)$/, '.expected.json').replace('mini-swe-agent.expected.json', 'mini-swe-agent.expected.json')),
        'utf8',
      ),
    ) as {
      filesModified: string[];
      commands: [string, boolean][];
      lastVerification: [string, boolean, string];
    };
    for (const f of expected.filesModified) assert.ok(shown.includes(`\`${f}\``), `${file}: ${f} in the capsule`);
    for (const [c] of expected.commands) assert.ok(shown.includes(c.replace(/\n/g, ' ⏎ ').slice(0, 100)), `${file}: command ${c}`);
    assert.match(shown, new RegExp(`\\*\\*Last verification:\\*\\* .*${expected.lastVerification[1] ? 'passed' : 'failed'}`));
    assert.equal((await cli('show', session, '--retention')).code, 0);
  });
}

test('capsule import: --from must name a known format; an unknown file says what it looked like', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-import-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  await assert.rejects(
    cli('import', join(DIR, 'codex.jsonl'), '-o', join(dir, 'a.jsonl'), '--from', 'cursor'),
    /--from must be one of claude-code, codex, anthropic, swe-agent, mini-swe-agent, openai/,
  );
  await assert.rejects(
    cli('import', join(DIR, 'codex.expected.json'), '-o', join(dir, 'b.jsonl')),
    /not a transcript format Capsule knows .*looked like a JSON object with keys root, filesModified/,
  );
});
