// Provider overflow in vendors' own words and body shapes, through the real openai client: every one recovers and learns the window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import type { ChatBody, ScriptedReply } from '../../fakes/openaiServer.js';
import { chat, describe, edgeRig, lastToolText, seen, writeTokens } from './edgeRig.js';

/** The real window of the "vendor"; Capsule is told 32k, so only the provider's error can reveal it. */
const REAL = 16_384;

interface Vendor {
  readonly name: string;
  readonly status: number;
  /** The body the vendor sends for a prompt of `n` tokens. */
  readonly body: (n: number) => unknown;
  /** The error states the window: Capsule must adopt exactly REAL. */
  readonly states: boolean;
}

const VENDORS: readonly Vendor[] = [
  {
    name: 'OpenAI',
    status: 400,
    states: true,
    body: (n) => ({
      error: {
        message: `This model's maximum context length is ${REAL} tokens. However, your messages resulted in ${n} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    }),
  },
  {
    name: 'Azure OpenAI',
    status: 400,
    states: true,
    body: (n) => ({
      error: {
        message: `This model's maximum context length is ${REAL} tokens. However, your messages resulted in ${n} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
        status: 400,
      },
    }),
  },
  {
    name: 'vLLM (legacy top-level body)',
    status: 400,
    states: true,
    body: (n) => ({
      object: 'error',
      message: `This model's maximum context length is ${REAL} tokens. However, you requested ${n + 4096} tokens (${n} in the messages, 4096 in the completion). Please reduce the length of the messages or completion.`,
      type: 'BadRequestError',
      param: null,
      code: 400,
    }),
  },
  {
    name: 'OpenRouter (Provider returned error)',
    status: 400,
    states: true,
    body: (n) => ({
      error: {
        message: 'Provider returned error',
        code: 400,
        metadata: {
          raw: JSON.stringify({ error: { message: `This endpoint's maximum context length is ${REAL} tokens. However, you requested about ${n} tokens.` } }),
          provider_name: 'DeepInfra',
        },
      },
    }),
  },
  {
    name: 'Gemini-compatible (array-wrapped)',
    status: 400,
    states: true,
    body: (n) => [
      { error: { code: 400, message: `The input token count (${n}) exceeds the maximum number of tokens allowed (${REAL}).`, status: 'INVALID_ARGUMENT' } },
    ],
  },
  {
    name: 'LM Studio (string error)',
    status: 400,
    states: true,
    body: (n) => ({
      error: `Trying to keep the first ${n} tokens when context the overflows. However, the model is loaded with context length of only ${REAL} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input`,
    }),
  },
  {
    name: 'llama.cpp (n_ctx)',
    status: 400,
    states: true,
    body: (n) => ({
      error: {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: n,
        n_ctx: REAL,
      },
    }),
  },
  {
    name: 'Ollama',
    status: 400,
    states: false,
    body: () => ({ error: { message: 'the input length exceeds the context length', type: 'invalid_request_error', param: null, code: null } }),
  },
  {
    name: 'Anthropic-style gateway',
    status: 400,
    states: true,
    body: (n) => ({ type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${n} tokens > ${REAL} maximum` } }),
  },
  {
    name: 'xAI',
    status: 400,
    states: true,
    body: (n) => ({
      code: 'Client specified an invalid argument',
      error: `This model's maximum prompt length is ${REAL} but the request contains ${n} tokens.`,
    }),
  },
  { name: 'AWS Bedrock gateway', status: 400, states: false, body: () => ({ message: 'Input is too long for requested model.' }) },
  {
    name: 'Hugging Face TGI (422)',
    status: 422,
    states: true,
    body: (n) => ({
      error: `Input validation error: \`inputs\` tokens + \`max_new_tokens\` must be <= ${REAL}. Given: ${n} \`inputs\` tokens and 4096 \`max_new_tokens\``,
      error_type: 'validation',
    }),
  },
  {
    name: 'Cohere',
    status: 400,
    states: true,
    body: (n) => ({
      message: `too many tokens: total number of tokens in the prompt cannot exceed ${REAL} - received ${n}. Try using a shorter prompt, or enabling prompt truncating.`,
    }),
  },
  {
    name: 'Mistral',
    status: 400,
    states: true,
    body: (n) => ({
      object: 'error',
      message: `Prompt contains ${n} tokens and 0 draft tokens, too large for model with ${REAL} maximum context length`,
      type: 'invalid_request_message_error',
      param: null,
      code: '3051',
    }),
  },
];

function completion(body: ChatBody): number {
  return body.max_tokens ?? body.max_completion_tokens ?? 0;
}

for (const v of VENDORS) {
  test(`overflow in ${v.name}'s words: the turn recovers, nothing is resent oversized${v.states ? ', and the stated window is adopted and persisted' : ''}`, async (t) => {
    const rig = await edgeRig(t, { window: 1_000_000 });
    for (let i = 1; i <= 3; i++) await writeTokens(rig, `f${i}.txt`, 3_500);
    // The vendor enforces its real window in its own words; the fake's own (larger) window never triggers.
    rig.server.onMatch(
      (req) => req.promptTokens + completion(req.body) > REAL,
      (req): ScriptedReply => ({ status: v.status, body: v.body(req.promptTokens) }),
    );
    rig.server.onMatch({ summary: true }, { text: GOOD_SUMMARY });
    rig.server.setFallback((req) => {
      const tool = lastToolText(req.body);
      if (tool !== '') return { text: `Read it: ${tool.length} chars.` };
      const m = /Read (f\d\.txt)/.exec(JSON.stringify(req.body.messages[req.body.messages.length - 1]));
      return m ? { toolCalls: [{ name: 'read_file', arguments: { path: m[1] } }] } : { text: 'ok' };
    });
    const flags = ['--window', '32768'];
    for (let i = 1; i <= 3; i++) {
      const r = await chat(rig, 'fake-model', `Read f${i}.txt`, ...flags);
      assert.equal(r.code, 0, `${v.name}, turn ${i}:\n${r.lines.join('\n')}`);
    }
    const s = seen(rig.server);
    t.diagnostic(`${v.name}: ${describe(s)}`);
    const refused = rig.server.chatRequests.filter((r) => r.status !== 200);
    assert.ok(refused.length >= 1, 'the vendor refused at least once');
    // After the refusal, nothing as large as the refused request was ever sent again (the summary request included).
    const firstRefused = refused[0];
    assert.ok(firstRefused);
    const later = rig.server.chatRequests.filter((r) => r.index > firstRefused.index);
    for (const r of later) assert.ok((r.promptTokens ?? 0) < (firstRefused.promptTokens ?? 0), `request ${r.index} resent ${r.promptTokens} tokens`);
    assert.equal(refused.length, 1, `${v.name}: overflowed again after recovery`);
    if (v.states) {
      const load = await loadSessionFile(rig.session);
      const windows = load.tree.branch().flatMap((e) => (e.type === 'model_change' && e.contextWindow !== undefined ? [e.contextWindow] : []));
      assert.equal(windows[windows.length - 1], REAL, `the stated window is recorded in the session: ${windows.join(', ')}`);
    }
  });
}
