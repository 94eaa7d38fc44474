// A window a provider's overflow error states is persisted per endpoint + model: the next session starts planned against it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cliLimitsPath, LearnedLimitsFile, limitsKey } from '../../../src/node/learnedLimits.js';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import type { ChatBody } from '../../fakes/openaiServer.js';
import { chat, edgeRig, lastToolText, writeTokens, type Rig } from './edgeRig.js';

/** The endpoint's real window; Capsule's table knows nothing of `fake-model`, so it assumes 32,768. */
const REAL = 16_384;

function completion(body: ChatBody): number {
  return body.max_tokens ?? body.max_completion_tokens ?? 0;
}

async function overflowingRig(t: { after(fn: () => Promise<void>): void }): Promise<Rig> {
  const rig = await edgeRig(t, { window: 1_000_000 });
  await writeTokens(rig, 'big.txt', 7_000);
  rig.server.onMatch(
    (req) => req.promptTokens + completion(req.body) > REAL,
    (req) => ({
      status: 400,
      body: {
        error: {
          message: `This model's maximum context length is ${REAL} tokens. However, your messages resulted in ${req.promptTokens} tokens.`,
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
    }),
  );
  rig.server.onMatch({ summary: true }, { text: GOOD_SUMMARY });
  rig.server.setFallback((req) => {
    const tool = lastToolText(req.body);
    if (tool !== '') return { text: `Read it: ${tool.length} chars.` };
    return /Read big/.test(JSON.stringify(req.body.messages[req.body.messages.length - 1]))
      ? { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] }
      : { text: 'ok' };
  });
  return rig;
}

function rejected(rig: Rig): number {
  return rig.server.chatRequests.filter((r) => r.status !== 200).length;
}

test('learn in session A, start session B: B is planned against the learned window from its first request, no overflow', async (t) => {
  const rig = await overflowingRig(t);
  let turns = 0;
  const aLines: string[] = [];
  while (turns < 4 && rejected(rig) === 0) {
    turns += 1;
    aLines.push(...(await chat(rig, 'fake-model', 'Read big.txt', '--session', join(rig.dir, 'a.jsonl'))).lines);
  }
  assert.ok(rejected(rig) > 0, `session A must meet the overflow:\n${aLines.join('\n')}`);
  assert.equal(completion(rig.server.chatRequests[0]?.body as ChatBody), 4_096, 'A started from the assumed 32k window');
  const stored = JSON.parse(await readFile(rig.limitsFile, 'utf8')) as { limits: Record<string, { contextWindow: number }> };
  assert.equal(stored.limits[limitsKey(rig.server.url, 'fake-model')]?.contextWindow, REAL, 'the stated window is persisted per endpoint + model');

  // B repeats A's work in a fresh session file: the same endpoint + model start from the learned window.
  const before = rig.server.chatRequests.length;
  const bLines: string[] = [];
  for (let i = 0; i < turns; i++) {
    const b = await chat(rig, 'fake-model', 'Read big.txt', '--session', join(rig.dir, 'b.jsonl'));
    assert.equal(b.code, 0, b.lines.join('\n'));
    bLines.push(...b.lines);
  }
  const bRequests = rig.server.chatRequests.slice(before);
  assert.ok(
    bRequests.every((r) => r.status === 200),
    `no overflow in session B:\n${bLines.join('\n')}`,
  );
  assert.equal(completion(bRequests[0]?.body as ChatBody), 2_048, `B's first request budgets its output for a ${REAL} window`);
});

test('an explicit --window beats the learned window; another model on the endpoint learns nothing from it', async (t) => {
  const rig = await overflowingRig(t);
  await new LearnedLimitsFile(rig.limitsFile).record(rig.server.url, 'fake-model', { contextWindow: 8_192, maxOutputTokens: 1_024 });
  const own = await chat(rig, 'fake-model', 'hello', '--session', join(rig.dir, 'c.jsonl'), '--window', '65536', '--max-output', '4000');
  assert.equal(own.code, 0, own.lines.join('\n'));
  assert.equal(completion(rig.server.chatRequests.at(-1)?.body as ChatBody), 4_000, 'the override is what is sent');
  const learned = await chat(rig, 'fake-model', 'hello', '--session', join(rig.dir, 'd.jsonl'));
  assert.equal(completion(rig.server.chatRequests.at(-1)?.body as ChatBody), 1_024, 'without flags the learned limits apply');
  assert.equal(learned.code, 0);
  assert.equal(await new LearnedLimitsFile(rig.limitsFile).get(rig.server.url, 'other-model'), undefined);
});

test('the limits file: env override, XDG, home; a garbled file is empty and is replaced whole on the next record', async (t) => {
  assert.equal(cliLimitsPath({ CAPSULE_LIMITS_FILE: '/x/l.json' }), '/x/l.json');
  assert.equal(cliLimitsPath({ XDG_CONFIG_HOME: '/cfg' }), join('/cfg', 'capsule', 'limits.json'));
  assert.match(cliLimitsPath({}), /\.config[/\\]capsule[/\\]limits\.json$/);
  const rig = await edgeRig(t, { window: 65_536 });
  await writeFile(rig.limitsFile, '{not json');
  const file = new LearnedLimitsFile(rig.limitsFile);
  assert.equal(await file.get('http://h/v1/', 'm'), undefined);
  await file.record('http://h/v1/', 'm', { contextWindow: 12_000 });
  assert.deepEqual(await file.get('http://h/v1', 'm'), { contextWindow: 12_000 }, 'a trailing slash names the same endpoint');
});
