// Encoding choice per model and the counter's behaviour on real text (docs/behaviour.md#tokens).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { ROLE_TOKENS } from '../../../src/engine/tokens/messageTokens.js';
import { counterForModel, encodingForModel } from '../../../src/node/tokenCounter.js';

test('OpenAI models map to their encodings; unknown families estimate with o200k_base', () => {
  for (const m of [
    'gpt-4o',
    'gpt-4o-mini',
    'gpt-4.1-mini',
    'o1',
    'o3-mini',
    'o4-mini',
    'gpt-5',
    'gpt-5-mini',
    'openai/gpt-4o',
    'gpt-oss-20b',
    'chatgpt-4o-latest',
  ]) {
    assert.equal(encodingForModel(m), 'o200k_base', m);
  }
  for (const m of ['gpt-4', 'gpt-4-turbo', 'gpt-4-0613', 'gpt-3.5-turbo', 'openai/gpt-3.5-turbo-0125']) {
    assert.equal(encodingForModel(m), 'cl100k_base', m);
  }
  for (const m of ['llama3.1:8b', 'Qwen/Qwen2.5-Coder-32B-Instruct', 'claude-sonnet-4', 'mistral-large-latest', 'deepseek-chat', '']) {
    assert.equal(encodingForModel(m), 'o200k_base', m);
  }
});

test('counts equal gpt-tokenizer encode() lengths and every call is recorded', () => {
  const text = 'function add(a: number, b: number) {\n  return a + b; // sum\n}\nПривет, мир! 你好 🎉';
  const o = counterForModel('gpt-4o');
  const c = counterForModel('gpt-4');
  assert.equal(o.encoding, 'o200k_base');
  assert.equal(c.encoding, 'cl100k_base');
  assert.equal(o.count(text), encodeO200k(text).length);
  assert.equal(c.count(text), encodeCl100k(text).length);
  assert.notEqual(o.count(text), c.count(text));
  assert.equal(o.calls, 2);
  assert.equal(c.calls, 2);
  assert.equal(counterForModel('gpt-4o').calls, 0, 'each counter has its own call count');
});

test('special-token text in user content is counted as ordinary text, not rejected', () => {
  const o = counterForModel('gpt-4o');
  const text = 'the file contains <|endoftext|> and <|im_start|>';
  assert.equal(o.count(text), encodeO200k(text, { disallowedSpecial: new Set() }).length);
  assert.ok(o.count('<|endoftext|>') > 1, 'spelled out, not the single special token');
});

test('each chat role is one token in both encodings (the ROLE_TOKENS constant relies on it)', () => {
  for (const role of ['system', 'user', 'assistant', 'tool']) {
    assert.equal(encodeO200k(role).length, ROLE_TOKENS, role);
    assert.equal(encodeCl100k(role).length, ROLE_TOKENS, role);
  }
});
