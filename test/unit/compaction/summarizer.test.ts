// The summarizer call (docs/behaviour.md#capsule): retries only transient faults, deadlines that always hold, fallback on failure, cancel means no capsule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APIError, APIUserAbortError } from 'openai';
import type { FaultInfo } from '../../../src/engine/provider/faults.js';
import { type SummarizeArgs, type SummarizeResult, type SummaryFailed, summarize, withFallback } from '../../../src/engine/compaction/summarizer.js';
import type { ChatModel, ChatRequest, Clock } from '../../../src/engine/ports.js';
import { nodeClock } from '../../../src/node/nodeClock.js';
import { ScriptedModel, type ModelStep } from '../../support/scriptedModel.js';

type Step = ModelStep;

/** The summarizer's script: one step per call, 'unscripted' after it, small deltas, the openai client's abort error. */
function scripted(steps: readonly Step[]): ScriptedModel {
  return new ScriptedModel(steps, {
    model: 'fake-model',
    afterLast: { text: 'unscripted' },
    chunk: 7,
    abortError: () => new APIUserAbortError(),
    checkAbortFirst: false,
  });
}

/** Virtual time: sleep records the delay, advances now() and resolves at once. */
class FakeClock implements Clock {
  t = 1_700_000_000_000;
  readonly sleeps: number[] = [];
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
    this.sleeps.push(ms);
    this.t += ms;
  }
}

function httpError(status: number, message: string, headers: Record<string, string> = {}, code: string | null = null): APIError {
  return APIError.generate(status, { error: { message, type: 'server_error', param: null, code } }, undefined, new Headers(headers));
}

const REQUEST: ChatRequest = {
  system: 'You are a coding agent.',
  messages: [{ role: 'user', content: 'Fix the bug in auth.ts' }],
  tools: [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object' } }],
  toolChoice: 'auto',
  stream: true,
};
const SUMMARY = '## Goal\nFix the auth bug.\n## Next Steps\nRun the tests.';

function go(model: ChatModel, extra: Partial<SummarizeArgs> = {}): ReturnType<typeof summarize> {
  return summarize({ model, request: REQUEST, timeoutMs: 15_000, clock: new FakeClock(), signal: new AbortController().signal, ...extra });
}

function failureOf(r: SummarizeResult): SummaryFailed {
  if (r.ok || r.reason === 'cancelled') return assert.fail(`expected a failure, got ${JSON.stringify(r)}`);
  return r;
}

function fallbackRecorder(): { readonly build: (reason: string) => string; readonly reasons: string[] } {
  const reasons: string[] = [];
  return { reasons, build: (reason) => (reasons.push(reason), `FALLBACK CAPSULE (${reason})`) };
}

test('429 then success: two attempts, one backoff, the answer is used', async () => {
  const model = scripted([
    { error: httpError(429, 'Rate limit reached for requests') },
    { text: `  ${SUMMARY}\n`, usage: { promptTokens: 900, completionTokens: 40 } },
  ]);
  const clock = new FakeClock();
  const seen: [number, FaultInfo | undefined][] = [];
  const r = await go(model, { clock, onAttempt: (n, err) => seen.push([n, err]) });
  assert.ok(r.ok);
  assert.equal(r.text, SUMMARY);
  assert.equal(r.attempts, 2);
  assert.deepEqual(r.usage, { promptTokens: 900, completionTokens: 40 });
  assert.equal(r.finishReason, 'stop');
  assert.equal(clock.sleeps.length, 1);
  assert.deepEqual(
    seen.map(([n, e]) => [n, e?.kind, e?.status]),
    [
      [1, undefined, undefined],
      [2, 'transient', 429],
    ],
  );
  const done = withFallback(r, () => assert.fail('no fallback on success'));
  assert.deepEqual(done, { ok: true, text: SUMMARY, quality: 'full', attempts: 2, usage: { promptTokens: 900, completionTokens: 40 } });
});

test('the request goes out non-streaming with toolChoice none, each attempt with its own signal', async () => {
  const model = scripted([{ error: httpError(503, 'Overloaded') }, { text: SUMMARY }]);
  await go(model);
  assert.equal(model.calls.length, 2);
  for (const c of model.calls) {
    assert.equal(c.request.stream, false);
    assert.equal(c.request.toolChoice, 'none');
    assert.deepEqual(c.request.messages, REQUEST.messages, 'same messages: cache-friendly');
    assert.deepEqual(c.request.tools, REQUEST.tools, 'same tool schemas: cache-friendly');
  }
  assert.notEqual(model.calls[0]?.signal, model.calls[1]?.signal);
});

test('500 four times: provider_error after exactly 4 attempts, then a degraded fallback', async () => {
  const model = scripted(Array.from({ length: 6 }, () => ({ error: httpError(500, 'The server had an error while processing your request.') })));
  const clock = new FakeClock();
  const r = await go(model, { clock, maxAttempts: 10 });
  assert.equal(r.ok, false);
  assert.equal(r.reason, 'provider_error');
  assert.equal(r.attempts, 4);
  assert.equal(model.calls.length, 4, 'never more than 4 network attempts');
  assert.equal(clock.sleeps.length, 3, 'a backoff between attempts, none after the last');
  assert.ok(
    clock.sleeps.every((ms, i) => i === 0 || ms >= (clock.sleeps[i - 1] ?? 0)),
    'backoff does not shrink',
  );
  const fb = fallbackRecorder();
  const done = withFallback(r, fb.build);
  assert.ok(done.ok);
  assert.equal(done.quality, 'degraded');
  assert.equal(fb.reasons.length, 1);
  assert.match(done.fallbackReason ?? '', /provider_error.*500/);
  assert.equal(done.text, `FALLBACK CAPSULE (${done.fallbackReason})`);
});

test('a hang ends in a timeout within timeoutMs, the model sees the abort, the fallback is used', { timeout: 10_000 }, async () => {
  const model = scripted([{ hang: 'honours-abort' }]);
  const r = await summarize({ model, request: REQUEST, timeoutMs: 200, clock: nodeClock, signal: new AbortController().signal });
  assert.equal(r.ok, false);
  assert.equal(r.reason, 'timeout');
  assert.equal(r.attempts, 1);
  assert.equal(model.calls[0]?.signal.aborted, true, 'the hanging request was aborted');
  const done = withFallback(r, fallbackRecorder().build);
  assert.ok(done.ok && done.quality === 'degraded');
  assert.match(done.fallbackReason ?? '', /^timeout/);
});

test('the overall deadline holds even when the model ignores its abort signal', { timeout: 10_000 }, async () => {
  const model = scripted([{ hang: 'ignores-abort' }]);
  const r = await summarize({ model, request: REQUEST, timeoutMs: 200, clock: nodeClock, signal: new AbortController().signal });
  assert.equal(r.ok, false);
  assert.equal(r.reason, 'timeout');
  assert.equal(model.calls[0]?.signal.aborted, true);
});

test('a per-attempt deadline turns a hung attempt into a retry', { timeout: 10_000 }, async () => {
  // Deadlines are wall-clock timers, so they work with a clock whose sleep is instant.
  const model = scripted([{ hang: 'honours-abort' }, { text: SUMMARY }]);
  const seen: (FaultInfo | undefined)[] = [];
  const r = await go(model, { attemptTimeoutMs: 50, onAttempt: (_n, e) => seen.push(e) });
  assert.ok(r.ok);
  assert.equal(r.attempts, 2);
  assert.equal(seen[1]?.kind, 'transient');
  assert.match(seen[1]?.message ?? '', /no answer within 50 ms/);

  const allHang = scripted([{ hang: 'honours-abort' }, { hang: 'honours-abort' }]);
  const t = await go(allHang, { attemptTimeoutMs: 30, maxAttempts: 2 });
  assert.equal(t.ok, false);
  assert.equal(t.reason, 'timeout', 'attempts that all hit their deadline read as a timeout');
  assert.equal(t.attempts, 2);
});

test('an empty answer is not retried and falls back', async () => {
  for (const step of [{ text: '' }, { text: ' \n\t ' }, { text: '', toolCall: true }, { text: '', finish: 'length' }]) {
    const model = scripted([step, { text: SUMMARY }]);
    const r = await go(model);
    assert.equal(r.ok, false);
    assert.equal(r.reason, 'empty');
    assert.equal(r.attempts, 1);
    assert.equal(model.calls.length, 1);
    const done = withFallback(r, fallbackRecorder().build);
    assert.ok(done.ok && done.quality === 'degraded');
    assert.match(done.fallbackReason ?? '', /^empty/);
  }
});

test('a non-transient 400 is not retried', async () => {
  const schema = httpError(400, "Invalid schema for function 'read_file': In context=('properties', 'path'), 'maxLength' is not permitted.");
  const model = scripted([{ error: schema }, { text: SUMMARY }]);
  const clock = new FakeClock();
  const r = await go(model, { clock });
  assert.equal(r.ok, false);
  assert.equal(r.reason, 'provider_error');
  assert.equal(r.attempts, 1);
  assert.equal(model.calls.length, 1);
  assert.deepEqual(clock.sleeps, []);
  assert.equal(failureOf(r).fault?.status, 400);
});

test('an overflow is reported as overflow, not retried (the caller bounds the request)', async () => {
  const overflow = APIError.generate(
    400,
    {
      error: {
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
    undefined,
    new Headers(),
  );
  const model = scripted([{ error: overflow }, { text: SUMMARY }]);
  const r = await go(model);
  assert.equal(r.ok, false);
  assert.equal(r.reason, 'overflow');
  assert.equal(model.calls.length, 1);
  assert.equal(withFallback(r, fallbackRecorder().build).ok, true, 'if the caller settles, overflow falls back like any failure');
});

test('a transient network failure mid-answer retries from scratch: partial text is discarded', async () => {
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  const model = scripted([{ error: new TypeError('terminated', { cause: reset }), afterText: '## Goal\nhalf of a summ' }, { text: SUMMARY }]);
  const r = await go(model);
  assert.ok(r.ok);
  assert.equal(r.text, SUMMARY);
  assert.equal(r.attempts, 2);
});

test('a model that throws before streaming is classified like any other error', async () => {
  const model = scripted([{ throwSync: httpError(502, 'Bad gateway.') }, { text: SUMMARY }]);
  const r = await go(model);
  assert.ok(r.ok);
  assert.equal(r.attempts, 2);
});

test('retry-after is honoured within the remaining budget', async () => {
  const clock = new FakeClock();
  const model = scripted([{ error: httpError(429, 'Rate limit reached', { 'retry-after': '2' }) }, { text: SUMMARY }]);
  const r = await go(model, { clock });
  assert.ok(r.ok);
  assert.deepEqual(clock.sleeps, [2000]);

  const ms = new FakeClock();
  await go(scripted([{ error: httpError(503, 'Overloaded', { 'retry-after-ms': '1250' }) }, { text: SUMMARY }]), { clock: ms });
  assert.deepEqual(ms.sleeps, [1250]);
});

test('a retry-after beyond the budget gives up at once instead of waiting past the deadline', async () => {
  const clock = new FakeClock();
  const model = scripted([{ error: httpError(429, 'Rate limit reached', { 'retry-after': '60' }) }, { text: SUMMARY }]);
  const r = await go(model, { clock, timeoutMs: 15_000 });
  assert.equal(r.ok, false);
  assert.equal(r.reason, 'provider_error');
  assert.equal(r.attempts, 1);
  assert.deepEqual(clock.sleeps, []);
  assert.match(failureOf(r).detail, /retry after 60000 ms/);
});

test('backoff counts against the overall budget', async () => {
  // 15 s budget, virtual time: 500 + 1000 + 2000 ms of backoff fit, so all 4 attempts run.
  const clock = new FakeClock();
  const fails = Array.from({ length: 4 }, () => ({ error: httpError(503, 'Overloaded') }));
  assert.equal((await go(scripted(fails), { clock })).attempts, 4);
  // 1.2 s budget: after 500 ms the 1000 ms backoff no longer fits.
  const tight = new FakeClock();
  const r = await go(scripted(fails), { clock: tight, timeoutMs: 1200 });
  assert.equal(r.attempts, 2);
  assert.equal(r.ok ? '' : r.reason, 'provider_error');
});

test('cancellation: cancelled at once, no fallback, whether before, during an attempt or during backoff', { timeout: 10_000 }, async () => {
  const before = new AbortController();
  before.abort();
  const idle = scripted([{ text: SUMMARY }]);
  assert.deepEqual(await go(idle, { signal: before.signal }), { ok: false, reason: 'cancelled', attempts: 0 });
  assert.equal(idle.calls.length, 0);

  const during = new AbortController();
  const hung = scripted([{ hang: 'ignores-abort', onStart: () => setImmediate(() => during.abort()) }]);
  const r = await go(hung, { signal: during.signal });
  assert.deepEqual(r, { ok: false, reason: 'cancelled', attempts: 1 });
  assert.equal(hung.calls[0]?.signal.aborted, true, 'the in-flight request is aborted');
  const fb = fallbackRecorder();
  assert.deepEqual(withFallback(r, fb.build), r, 'cancelled stays cancelled');
  assert.deepEqual(fb.reasons, [], 'no fallback capsule is built for a cancelled turn');

  const inBackoff = new AbortController();
  const stuckClock: Clock = {
    now: () => 0,
    sleep: () => {
      inBackoff.abort();
      return new Promise<void>(() => undefined); // a clock that ignores the signal must not hold us
    },
  };
  const retried = scripted([{ error: httpError(500, 'x') }, { text: SUMMARY }]);
  assert.deepEqual(await go(retried, { clock: stuckClock, signal: inBackoff.signal }), { ok: false, reason: 'cancelled', attempts: 1 });
  assert.equal(retried.calls.length, 1);
});

test('a throwing progress callback does not break summarization', async () => {
  const r = await go(scripted([{ text: SUMMARY }]), {
    onAttempt: () => {
      throw new Error('ui gone');
    },
  });
  assert.ok(r.ok);
});
