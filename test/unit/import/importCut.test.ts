// The member the streamed import never reads (Claude Code's toolUseResult) is cut from a line's bytes exactly, or not at all: what is left parses as the line without it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { memberRange, valueEnd } from '../../../src/engine/import/memberCut.js';

const MEMBER = Buffer.from(',"toolUseResult":');

function cut(line: string): string | undefined {
  const buf = Buffer.from(line);
  const r = memberRange(buf, 0, buf.length, MEMBER);
  return r === undefined ? undefined : buf.toString('utf8', 0, r[0]) + buf.toString('utf8', r[1]);
}

/** Strings that fool a naive scanner: quotes, backslash runs before quotes, the member's own text, brackets, commas. */
const tricky = fc.oneof(fc.string(), fc.constantFrom('\\', '\\\\', '"', '\\"', ',"toolUseResult":{', '}', ']', '{[', 'é😀', '\u2028', ',', ''));
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
})).value;

test('the cut line parses as the line without the member, wherever the member stands after the first', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string(), json, { minKeys: 1, maxKeys: 5 }), json, fc.nat(5), fc.boolean(), (rest, unread, at, spaced) => {
      const keys = Object.keys(rest).filter((k) => k !== 'toolUseResult');
      fc.pre(keys.length > 0);
      const parts = keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(rest[k])}`);
      const place = 1 + (at % parts.length);
      parts.splice(place, 0, `"toolUseResult":${spaced ? ' ' : ''}${JSON.stringify(unread)}`);
      const line = `{${parts.join(',')}}`;
      const left = cut(line);
      assert.ok(left !== undefined, line);
      const expected: unknown = JSON.parse(JSON.stringify(Object.fromEntries(keys.map((k) => [k, rest[k]]))));
      assert.deepEqual(JSON.parse(left), expected);
    }),
    { numRuns: 400 },
  );
});

test('lines it leaves whole: no such member, the member first, a value cut short or not JSON', () => {
  for (const line of [
    '{"type":"user","message":{"content":"x"}}',
    '{"toolUseResult":{"stdout":"x"},"type":"user"}',
    '{"type":"user","toolUseResult":{"stdout":"x',
    '{"type":"user","toolUseResult":{"stdout":"x\\"}',
    '{"type":"user","toolUseResult":{"stdout":"x"}',
    '{"type":"user","toolUseResult":{oops},"uuid":"u"}',
    '{"type":"user","toolUseResult":{"a":"b"}x"uuid":"u"}',
    '{"type":"user","text":"say \\",\\"toolUseResult\\":1"}',
  ])
    assert.equal(cut(line), undefined, line);
  // The line's own end bounds the search: a member in the next line is not this line's.
  const two = Buffer.from('{"a":1}\n{"b":2,"toolUseResult":{}}');
  assert.equal(memberRange(two, 0, 7, MEMBER), undefined);
  assert.deepEqual(memberRange(two, 8, two.length, MEMBER), [14, two.length - 1]);
});

test('a value ends where JSON says it does, also after backslash runs before a quote', () => {
  const end = (s: string): number => valueEnd(Buffer.from(s), 0, Buffer.byteLength(s));
  assert.equal(end('"a\\\\",'), 5);
  assert.equal(end('"a\\\\\\"b",'), 8);
  assert.equal(end('{"x":[1,{"y":"}"}]},'), 19);
  assert.equal(end('-1.5e3,'), 6);
  assert.equal(end('true}'), 4);
  assert.equal(end('{"x":1'), -1);
  assert.equal(end('"never closed'), -1);
});
