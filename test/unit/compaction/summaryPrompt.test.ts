// The summary request (docs/behaviour.md#capsule): cache-friendly prefix, instruction last, bounding that never splits a tool pair.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  COMPACTION_INSTRUCTION,
  boundSummaryMessages,
  buildSummaryMessages,
  compactionInstruction,
  omittedResultMarker,
} from '../../../src/engine/compaction/summaryPrompt.js';
import { SECTION_NAMES } from '../../../src/engine/compaction/capsuleFormat.js';
import { CAPSULE_QUESTION, type ModelMessage, buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import { SessionBuilder, pbtSeed } from './sessionBuilder.js';

const tokensOfMessage = (m: ModelMessage): number => Math.ceil(JSON.stringify(m).length / 4);
const lines = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag} line ${i}`).join('\n');

test('the instruction asks for the seven sections and carries /compact focus as data', () => {
  for (const name of SECTION_NAMES) assert.ok(COMPACTION_INSTRUCTION.includes(`## ${name}`), name);
  assert.equal(compactionInstruction(), COMPACTION_INSTRUCTION);
  assert.equal(compactionInstruction('   '), COMPACTION_INSTRUCTION);
  const focused = compactionInstruction('the auth flow');
  assert.ok(focused.startsWith(COMPACTION_INSTRUCTION));
  assert.match(focused, /"""\nthe auth flow\n"""$/);
});

test('the summary request is the exact last-sent list with the instruction appended last', () => {
  const b = new SessionBuilder();
  b.user('Build it.');
  b.assistant('Reading.', 10, [{ name: 'read_file', args: { path: 'a.ts' }, result: lines(50, 'a') }]);
  b.capsule({ firstKeptEntryId: null, summary: '## Goal\nBuild it.' });
  b.user('Continue.');
  b.assistant('Running.', 10, [{ name: 'run_command', args: { command: 'npm test' }, result: 'exit code 0' }]);
  const lastSent = buildModelInput(b.entries, 'system').messages;
  const unseen: ModelMessage[] = [{ role: 'assistant', content: 'All green.' }];
  const out = buildSummaryMessages(lastSent, compactionInstruction('tests'), unseen);
  const identical = lastSent.filter((m, i) => JSON.stringify(m) === JSON.stringify(out[i])).length;
  console.log(`summary request prefix: ${identical} of ${lastSent.length} messages identical to the last request`);
  assert.equal(identical, lastSent.length);
  assert.deepEqual(out[lastSent.length], unseen[0]);
  assert.deepEqual(out[out.length - 1], { role: 'user', content: compactionInstruction('tests') });
  assert.equal(out.length, lastSent.length + 2);
});

test('bounding truncates older tool results first and keeps the newest intact', () => {
  const msgs: ModelMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'c1', content: lines(400, 'old') },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'read_file', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'c2', content: lines(400, 'new') },
    { role: 'user', content: COMPACTION_INSTRUCTION },
  ];
  const full = msgs.reduce((a, m) => a + tokensOfMessage(m), 0);
  const r = boundSummaryMessages(msgs, tokensOfMessage, full - 1000);
  assert.equal(r.fits, true);
  assert.equal(r.droppedMessages, 0);
  assert.equal(r.truncatedResults, 1);
  const [oldResult, newResult] = r.messages.filter((m) => m.role === 'tool');
  assert.match(oldResult?.content ?? '', /\[\.\.\. 360 lines truncated \.\.\.\]/);
  assert.equal(newResult?.content, lines(400, 'new'));
});

type Group = { readonly k: 'user' | 'assistant'; readonly n: number } | { readonly k: 'tools'; readonly results: readonly number[] };
const groupArb: fc.Arbitrary<Group> = fc.oneof(
  fc.record({ k: fc.constantFrom('user' as const, 'assistant' as const), n: fc.integer({ min: 1, max: 200 }) }),
  fc.record({ k: fc.constant('tools' as const), results: fc.array(fc.integer({ min: 1, max: 120 }), { minLength: 1, maxLength: 3 }) }),
);

function messagesOf(groups: readonly Group[], withCapsule: boolean): ModelMessage[] {
  const out: ModelMessage[] = withCapsule
    ? [
        { role: 'user', content: CAPSULE_QUESTION },
        { role: 'assistant', content: lines(30, 'capsule') },
      ]
    : [];
  let call = 0;
  for (const g of groups) {
    if (g.k === 'tools') {
      const ids = g.results.map(() => `call${++call}`);
      out.push({ role: 'assistant', content: '', toolCalls: ids.map((id) => ({ id, name: 'read_file', arguments: '{}' })) });
      g.results.forEach((n, i) => out.push({ role: 'tool', toolCallId: ids[i] ?? '', content: lines(n, `r${i}`) }));
    } else if (g.k === 'user') out.push({ role: 'user', content: 'u'.repeat(g.n * 10) });
    else out.push({ role: 'assistant', content: 'a'.repeat(g.n * 10) });
  }
  return [...out, { role: 'user', content: COMPACTION_INSTRUCTION }];
}

test('property: bounding fits the budget when possible, keeps the instruction last and every tool pair whole', () => {
  const seed = pbtSeed('bound summary');
  const instructionTokens = tokensOfMessage({ role: 'user', content: COMPACTION_INSTRUCTION });
  fc.assert(
    fc.property(fc.array(groupArb, { maxLength: 12 }), fc.boolean(), fc.double({ min: 0, max: 1.1, noNaN: true }), (groups, withCapsule, f) => {
      const input = messagesOf(groups, withCapsule);
      const full = input.reduce((a, m) => a + tokensOfMessage(m), 0);
      const budget = Math.floor(instructionTokens + (full - instructionTokens) * f);
      const r = boundSummaryMessages(input, tokensOfMessage, budget);
      const out = r.messages;
      assert.deepEqual(out[out.length - 1], input[input.length - 1]);
      assert.equal(
        r.tokens,
        out.reduce((a, m) => a + tokensOfMessage(m), 0),
      );
      assert.equal(r.fits, r.tokens <= budget);
      assert.equal(r.fits, true, 'the instruction alone fits, so bounding must reach the budget');
      if (full <= budget) assert.deepEqual(out, input);
      // Tool pairs stay whole and adjacent.
      for (let i = 0; i < out.length; i++) {
        const m = out[i];
        if (m?.role !== 'assistant' || !m.toolCalls) continue;
        const results = out.slice(i + 1, i + 1 + m.toolCalls.length);
        assert.deepEqual(
          results.map((x) => (x.role === 'tool' ? x.toolCallId : x.role)),
          m.toolCalls.map((c) => c.id),
        );
      }
      out.forEach((m, i) => {
        if (m.role === 'tool') assert.ok(out[i - 1]?.role === 'tool' || out[i - 1]?.role === 'assistant', 'orphan tool result');
      });
      // Rounds are dropped only after every remaining tool result was shortened to a marker (or was shorter already).
      if (r.droppedMessages > 0) {
        for (const m of out) {
          if (m.role === 'tool') assert.ok(/^\[tool result omitted/.test(m.content) || m.content.length < omittedResultMarker(m.content).length, m.content);
        }
      }
      // The previous capsule pair is the last thing to go.
      if (withCapsule && out.length > 1) assert.equal(out[0]?.role === 'user' && out[0].content, CAPSULE_QUESTION);
    }),
    { seed, numRuns: 1000 },
  );
});

test('bounding drops the previous capsule pair whole, never its answer without its question (seed 665335091)', () => {
  const input: ModelMessage[] = [
    { role: 'user', content: CAPSULE_QUESTION },
    { role: 'assistant', content: lines(30, 'capsule') },
    { role: 'user', content: COMPACTION_INSTRUCTION },
  ];
  const [question, answer, instruction] = input.map(tokensOfMessage) as [number, number, number];
  const r = boundSummaryMessages(input, tokensOfMessage, instruction + answer);
  assert.ok(question > 0 && r.fits);
  assert.deepEqual(r.messages, [input[2]], 'the pair went together; only the instruction is left');
});
