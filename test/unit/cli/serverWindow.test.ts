// The CLI asks the server for the window (once per endpoint + model) and `capsule budget` shows it with its source; a user's --window wins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../../src/cli/main.js';
import { chat, edgeRig } from './edgeRig.js';

async function budget(session: string, ...flags: string[]): Promise<string[]> {
  const lines: string[] = [];
  const code = await main(['budget', session, ...flags], (s) => lines.push(...s.split('\n')));
  assert.equal(code, 0, lines.join('\n'));
  return lines;
}

test('a server stating 12k in /v1/models: chat uses 12,000 (one GET, not per run) and budget shows 12,000 with its source', async (t) => {
  const rig = await edgeRig(t, { window: 12_000 });
  const r = await chat(rig, 'fake-model', 'hello');
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.ok(r.lines.includes("[model] fake-model: window 12,000 tokens, stated by the server's /v1/models"), r.lines.join('\n'));
  const gets = (): number => rig.server.requests.filter((q) => q.method === 'GET' && q.path === '/v1/models').length;
  assert.equal(gets(), 1);
  const again = await chat(rig, 'fake-model', 'hello again');
  assert.equal(again.code, 0);
  assert.equal(gets(), 1, 'asked once per endpoint + model');
  const lines = await budget(rig.session);
  assert.ok(
    lines.some((l) => /Context window:\s+12,000 tokens \(provider: stated by the server's \/v1\/models\)/.test(l)),
    lines.join('\n'),
  );
  assert.ok(lines.some((l) => /Hard limit/.test(l)));
});

test("Ollama's /api/show and LM Studio's model list are asked when /v1/models states nothing", async (t) => {
  for (const shape of ['ollama', 'lmstudio'] as const) {
    const rig = await edgeRig(t, { modelsShape: shape, models: [{ id: 'llama3:8b', contextLength: 8_192, maxContextLength: 131_072 }] });
    const r = await chat(rig, 'llama3:8b', 'hello');
    assert.equal(r.code, 0, r.lines.join('\n'));
    assert.ok(
      r.lines.some((l) => /^\[model\] llama3:8b: window 8,192 tokens, stated by (Ollama's \/api\/show|LM Studio's \/api\/v0\/models)$/.test(l)),
      `${shape}: ${r.lines.join('\n')}`,
    );
    const lines = await budget(rig.session);
    assert.ok(
      lines.some((l) => /Context window:\s+8,192 tokens \(provider: stated by/.test(l)),
      lines.join('\n'),
    );
  }
});

test("a user's --window wins over the server and is kept for the session; budget without --window shows the session's window", async (t) => {
  const rig = await edgeRig(t, { window: 65_000 });
  const r = await chat(rig, 'fake-model', 'hello', '--window', '32768');
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.equal(rig.server.requests.filter((q) => q.path === '/v1/models').length, 0, 'the user set the window: nothing to ask');
  const again = await chat(rig, 'fake-model', 'hello again');
  assert.equal(again.code, 0);
  assert.equal(rig.server.requests.filter((q) => q.path === '/v1/models').length, 0, "the session keeps the user's window");
  const lines = await budget(rig.session);
  assert.ok(
    lines.some((l) => /Context window:\s+32,768 tokens/.test(l)),
    lines.join('\n'),
  );
});
