// One model request has an overall deadline across its attempts, and the user is told how long Capsule keeps waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callModel } from '../../../src/engine/agent/modelCall.js';
import type { ChatModel, Clock } from '../../../src/engine/ports.js';
import { OpenAIChatModel } from '../../../src/node/providers/openaiModel.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';

const STALL_MS = 400;

/**
 * Time as the request sees it, independent of how loaded the machine is: each attempt costs one stall and each
 * backoff wait costs its length. The stall timer itself is real; only the deadline's arithmetic reads this clock.
 */
function virtualTime(): { readonly clock: Clock; advance(ms: number): void; now(): number } {
  let t = 1_000_000;
  return {
    clock: {
      now: () => t,
      async sleep(ms: number, signal?: AbortSignal): Promise<void> {
        if (signal?.aborted === true) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
        t += ms;
        await Promise.resolve();
      },
    },
    advance: (ms) => (t += ms),
    now: () => t,
  };
}

test('a provider that accepts and never answers is given up on at the overall deadline, not after attempts × stall', async (t) => {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.setFallback(() => ({ hang: true }));
  const time = virtualTime();
  const events: string[] = [];
  const real = new OpenAIChatModel({ baseURL: server.url, apiKey: '', model: 'fake-model' });
  // The real client against the real server; each attempt is recorded and counts one stall of virtual time.
  const model: ChatModel = {
    provider: real.provider,
    model: real.model,
    chat(request, signal) {
      events.push(`attempt ${events.filter((e) => e.startsWith('attempt')).length + 1}`);
      time.advance(STALL_MS);
      return real.chat(request, signal);
    },
  };
  const out = await callModel({
    model,
    request: { system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], stream: true },
    signal: new AbortController().signal,
    clock: time.clock,
    maxAttempts: 4,
    stallTimeoutMs: STALL_MS,
    deadlineMs: 1000,
    waitNoticeMs: 50,
    onDelta: () => undefined,
    onRetry: (_fault, attempt, waitMs) => events.push(`retry ${attempt} after ${waitMs} ms`),
    onWaiting: (remainingMs, attempt) => events.push(`waiting in attempt ${attempt}: ${remainingMs} ms left`),
  });
  assert.equal(out.kind, 'failed');
  assert.match(out.kind === 'failed' ? out.message : '', /did not answer within 1 s \(the limit for one request, all attempts together\)/);
  // Attempt 1 stalls (400 ms), the 500 ms backoff fits in the 600 ms left, attempt 2 stalls past the deadline: two
  // attempts where attempts × stall would have been four. The wait notice (50 ms) comes before each stall.
  assert.deepEqual(events, ['attempt 1', 'waiting in attempt 1: 600 ms left', 'retry 2 after 500 ms', 'attempt 2', 'waiting in attempt 2: 0 ms left']);
});
