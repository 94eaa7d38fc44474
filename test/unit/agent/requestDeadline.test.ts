// One model request has an overall deadline across its attempts, and the user is told how long Capsule keeps waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callModel } from '../../../src/engine/agent/modelCall.js';
import { OpenAIChatModel } from '../../../src/node/openaiModel.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { instantSleepClock } from './agentHelpers.js';

test('a provider that accepts and never answers is given up on at the overall deadline, not after attempts × stall', async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.setFallback(() => ({ hang: true }));
  const waits: number[] = [];
  const out = await callModel({
    model: new OpenAIChatModel({ baseURL: server.url, apiKey: '', model: 'fake-model' }),
    request: { system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], stream: true },
    signal: new AbortController().signal,
    clock: instantSleepClock,
    maxAttempts: 4,
    stallTimeoutMs: 400,
    deadlineMs: 1000,
    waitNoticeMs: 50,
    onDelta: () => undefined,
    onWaiting: (remainingMs) => waits.push(remainingMs),
  });
  assert.equal(out.kind, 'failed');
  assert.match(out.kind === 'failed' ? out.message : '', /did not answer within 1 s \(the limit for one request, all attempts together\)/);
  // Two attempts of 400 ms fit in 1 s (the backoff waits are instant here), where attempts × stall would have been four.
  assert.equal(server.chatRequests.length, 2);
  assert.ok(waits.length >= 1 && waits.every((w) => w <= 1000), JSON.stringify(waits));
});
