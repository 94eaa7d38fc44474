// Fault classification (docs/behaviour.md#capsule, #overflow): every known overflow wording, transient vs fatal, abort, Retry-After — on plain and real SDK errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { classifyError } from '../../../src/engine/provider/faults.js';
import { OVERFLOW_CODES, OVERFLOW_PATTERNS, type OverflowSample } from '../../../src/engine/provider/overflowPatterns.js';

/** The error the openai SDK throws for a JSON error body (`{ error: {...} }`) with this status. */
function sdkError(status: number, error: Record<string, unknown> | string, headers: Record<string, string> = {}): APIError {
  return APIError.generate(status, { error }, undefined, new Headers(headers));
}

function bodyOf(s: OverflowSample): Record<string, unknown> {
  return { message: s.message, type: 'invalid_request_error', ...(s.code === undefined ? {} : { code: s.code }) };
}

test('the overflow table: each pattern has samples and matches its own samples', () => {
  assert.ok(OVERFLOW_PATTERNS.length >= 10);
  const ids = new Set<string>();
  for (const p of OVERFLOW_PATTERNS) {
    assert.ok(!ids.has(p.id), `duplicate id ${p.id}`);
    ids.add(p.id);
    assert.ok(p.samples.length > 0, `${p.id} has no sample`);
    for (const s of p.samples) assert.match(s.message, p.pattern, `${p.id} does not match its own sample`);
  }
  const providers = OVERFLOW_PATTERNS.flatMap((p) => p.providers).join(' | ');
  for (const who of ['OpenAI', 'Azure OpenAI', 'OpenRouter', 'Anthropic', 'vLLM', 'Ollama', 'LM Studio'])
    assert.ok(providers.includes(who), `no pattern for ${who}`);
});

test('every sample in the table is an overflow, in every shape a provider error reaches us', () => {
  for (const p of OVERFLOW_PATTERNS) {
    for (const s of p.samples) {
      const label = `${p.id}: ${s.message.slice(0, 60)}`;
      // as the openai SDK throws it (message prefixed with the status)
      if (s.status !== undefined) assert.equal(classifyError(sdkError(s.status, bodyOf(s))).kind, 'overflow', `sdk ${label}`);
      // as a plain ProviderError-like object, with the code stripped so the wording alone must do it
      assert.equal(classifyError({ status: s.status, message: s.message }).kind, 'overflow', `plain ${label}`);
      // as a streamed error event without status, and as a bare Error
      assert.equal(classifyError({ error: { message: s.message } }).kind, 'overflow', `event ${label}`);
      assert.equal(classifyError(new Error(s.message)).kind, 'overflow', `Error ${label}`);
      assert.equal(classifyError(new Error(s.message.toUpperCase())).kind, 'overflow', `upper case ${label}`);
    }
  }
});

test('LM Studio answers {"error": "<text>"}: the string body is read too', () => {
  const text = OVERFLOW_PATTERNS.find((p) => p.id === 'keep-first-tokens')?.samples[0]?.message ?? '';
  const err = sdkError(400, text);
  assert.equal(classifyError(err).kind, 'overflow');
});

test('overflow codes alone are enough, wherever the body puts them', () => {
  for (const code of OVERFLOW_CODES) {
    assert.equal(classifyError({ status: 400, code, message: 'Bad request' }).kind, 'overflow', code);
    assert.equal(classifyError({ status: 400, error: { code, message: 'x' } }).kind, 'overflow', code);
    assert.equal(classifyError({ error: { error: { code, message: 'x' } } }).kind, 'overflow', code);
  }
  const f = classifyError(sdkError(400, { code: 'context_length_exceeded', message: 'too long', type: 'invalid_request_error' }));
  assert.deepEqual([f.kind, f.status, f.code], ['overflow', 400, 'context_length_exceeded']);
});

test('the generic 400/413 rule: context + length/max/maximum/too long/exceed', () => {
  for (const m of [
    'Request exceeds the context limit',
    'context too long for this deployment',
    'Maximum context reached',
    'The context length of this model is 4096',
    'context window exceeded by 512 tokens',
  ]) {
    assert.equal(classifyError({ status: 400, message: m }).kind, 'overflow', m);
  }
  assert.equal(classifyError({ status: 413, message: '413 status code (no body)' }).kind, 'overflow', 'a 413 is too big by definition');
  assert.equal(classifyError(sdkError(413, { message: 'Request too large.', code: 'request_too_large' })).kind, 'overflow');
});

test('a truncated JSON body counts as an overflow, in any case', () => {
  assert.equal(classifyError(new SyntaxError('Unexpected end of JSON input')).kind, 'overflow');
  assert.equal(classifyError(new Error('unexpected end of json input')).kind, 'overflow');
  assert.equal(classifyError({ message: 'UNEXPECTED END OF JSON INPUT' }).kind, 'overflow');
});

test('non-overflow 400s and auth errors are fatal: retrying or compacting cannot fix them', () => {
  const fatal400 = [
    "Invalid schema for function 'read_file': In context=('properties', 'path'), 'maxLength' is not permitted.",
    "Invalid schema for function 'run_command': In context=('properties', 'timeout'), 'maximum' is not permitted.",
    "Invalid schema for function 'edit': In context=(), 'required' is required to be supplied and to be an array including every key in properties.",
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    "Invalid 'messages[3].content': string too long. Expected a string with maximum length 10485760, but got a string with length 12000000 instead.",
    "'tools[0].function.name' does not match '^[a-zA-Z0-9_-]{1,64}$'",
    "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
  ];
  for (const m of fatal400) {
    assert.equal(classifyError(sdkError(400, { message: m, type: 'invalid_request_error', code: null })).kind, 'fatal', m);
    assert.equal(classifyError({ status: 400, message: m }).kind, 'fatal', m);
  }
  assert.equal(classifyError(sdkError(401, { message: 'Incorrect API key provided: sk-ab*****1234.', code: 'invalid_api_key' })).kind, 'fatal');
  assert.equal(classifyError(sdkError(403, { message: 'Project does not have access to model gpt-5' })).kind, 'fatal');
  assert.equal(classifyError(sdkError(404, { message: 'The model `gpt-9` does not exist', code: 'model_not_found' })).kind, 'fatal');
  assert.equal(classifyError(sdkError(422, { message: 'Unprocessable' })).kind, 'fatal');
});

test('transient: 408, 425, 429 and every 5xx', () => {
  for (const status of [408, 425, 429, 500, 502, 503, 504, 529]) {
    const f = classifyError(sdkError(status, { message: 'The server had an error while processing your request. Sorry about that!' }));
    assert.deepEqual([f.kind, f.status], ['transient', status], String(status));
    assert.equal(classifyError({ status, message: 'x' }).kind, 'transient');
  }
});

test('a 429 for an exhausted quota is fatal: no wait will fix it', () => {
  const f = classifyError(
    sdkError(429, {
      message: 'You exceeded your current quota, please check your plan and billing details.',
      code: 'insufficient_quota',
      type: 'insufficient_quota',
    }),
  );
  assert.equal(f.kind, 'fatal');
});

test('transient: network failures by code (also deep in the cause chain), by message and by SDK class', () => {
  for (const code of ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET']) {
    const netErr = Object.assign(new Error(`connect ${code} 127.0.0.1:443`), { code });
    assert.equal(classifyError(netErr).kind, 'transient', code);
    assert.equal(classifyError(new TypeError('fetch failed', { cause: netErr })).kind, 'transient', `cause ${code}`);
    assert.equal(classifyError(new APIConnectionError({ message: 'Connection error.', cause: new TypeError('x', { cause: netErr }) })).kind, 'transient');
  }
  for (const m of ['terminated', 'fetch failed', 'socket hang up', 'TypeError: terminated']) assert.equal(classifyError(new TypeError(m)).kind, 'transient', m);
  assert.equal(classifyError(new APIConnectionError({})).kind, 'transient');
  assert.equal(classifyError(new APIConnectionTimeoutError()).kind, 'transient');
  assert.equal(classifyError(new DOMException('The operation timed out.', 'TimeoutError')).kind, 'transient');
  // minified bundles rename classes: the plain shape with only a name still works
  assert.equal(classifyError({ name: 'APIConnectionTimeoutError', message: 'x' }).kind, 'transient');
});

test('aborts are aborts, not faults to retry', () => {
  assert.equal(classifyError(new APIUserAbortError()).kind, 'abort');
  assert.equal(classifyError(new DOMException('This operation was aborted', 'AbortError')).kind, 'abort');
  assert.equal(classifyError({ name: 'AbortError', message: 'aborted' }).kind, 'abort');
  assert.equal(classifyError({ message: 'Request was aborted.' }).kind, 'abort', 'the SDK message survives minification');
  const ac = new AbortController();
  ac.abort();
  assert.equal(classifyError(ac.signal.reason).kind, 'abort');
});

test('Retry-After is honoured in every form the providers use', () => {
  assert.equal(classifyError(sdkError(429, { message: 'Rate limit reached' }, { 'retry-after': '2' })).retryAfterMs, 2000);
  assert.equal(classifyError(sdkError(503, { message: 'Overloaded' }, { 'retry-after-ms': '750', 'retry-after': '9' })).retryAfterMs, 750);
  assert.equal(classifyError({ status: 429, message: 'x', headers: { 'Retry-After': '1.5' } }).retryAfterMs, 1500);
  const now = Date.parse('2025-01-01T00:00:00Z');
  const date = new Date(now + 3000).toUTCString();
  assert.equal(classifyError({ status: 503, message: 'x', headers: { 'retry-after': date } }, now).retryAfterMs, 3000);
  assert.equal(classifyError({ status: 503, message: 'x', headers: { 'retry-after': date } }).retryAfterMs, undefined, 'a date needs a clock');
  const worded = sdkError(429, {
    message: 'Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2.5s.',
  });
  assert.equal(classifyError(worded).retryAfterMs, 2500);
  assert.equal(classifyError({ status: 429, message: 'Please try again in 20ms.' }).retryAfterMs, 20);
  assert.equal(classifyError({ status: 429, message: 'x', retryAfterMs: 1234 }).retryAfterMs, 1234);
  assert.equal(classifyError({ status: 400, message: 'x', headers: { 'retry-after': '5' } }).retryAfterMs, undefined, 'only transient faults carry it');
});

test('never throws, whatever it is given', () => {
  const hostile = Object.defineProperty({}, 'message', {
    get() {
      throw new Error('boom');
    },
  });
  for (const v of [undefined, null, 42, 'plain string', Symbol('s'), [], {}, hostile, { status: 'nope' }]) {
    const f = classifyError(v);
    assert.equal(f.kind, 'fatal');
    assert.equal(typeof f.message, 'string');
  }
  const long = classifyError(new Error('x'.repeat(5000)));
  assert.ok(long.message.length <= 500, 'messages are clipped for logs and UI');
});
