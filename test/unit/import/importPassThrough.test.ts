// Long tool results pass through a streamed import as their JSON bytes only when those bytes are what JSON.stringify writes, and go back exactly where they stood.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exitCodeOf } from '../../../src/engine/effects/resultStatus.js';
import { contentJsonOf, JsonStringBytes, resultWithJson, statedExitCode } from '../../../src/engine/import/jsonString.js';
import { cutLine, LINE_NEEDLES, Needle, Needles, restoreKept } from '../../../src/node/importPassThrough.js';
import { canonicalStringEnd } from '../../../src/node/jsonStringScan.js';
import { ImportRefused, ImportWriter } from '../../../src/node/importWriter.js';
import { tempDir } from '../../support/tempDir.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const POOL = [
  '\n',
  '\t',
  '\r',
  '\b',
  '\f',
  '\u0000',
  '\u0001',
  '\u001f',
  '"',
  '\\',
  '/',
  'é',
  '\u2028',
  '\u{1F600}',
  '\ud800',
  '\udfff',
  '\u007f',
  'a',
  ' ',
  '<',
];

function anyText(r: () => number, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += POOL[Math.floor(r() * POOL.length)] ?? '';
  return out;
}

const hasLoneSurrogate = (t: string): boolean => /[\ud800-\udfff]/.test(t.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''));

test('a string is passed through exactly when its bytes are what JSON.stringify writes', () => {
  const r = rng(3);
  let accepted = 0;
  for (let k = 0; k < 5000; k++) {
    const text = anyText(r, Math.floor(r() * 30));
    const json = JSON.stringify(text);
    const pad = Math.floor(r() * 5);
    const buf = Buffer.from(`${' '.repeat(pad)}${json},"next":1}`);
    const end = canonicalStringEnd(buf, pad, buf.length);
    // JSON.stringify escapes a lone surrogate (`\udfff`), a form never passed through: the parser takes it instead.
    if (hasLoneSurrogate(text)) assert.equal(end, -1, json);
    else {
      assert.equal(end, pad + Buffer.byteLength(json), json);
      accepted++;
    }
    // Cut short: never ends.
    assert.equal(canonicalStringEnd(buf, pad, pad + Buffer.byteLength(json) - 1), -1, json);
  }
  assert.ok(accepted > 1000);
  const refused = [
    '"a\\/b"', // JSON.stringify writes "/" as it is
    '"\\u0041"', // and letters
    '"\\u001F"', // and lower-case hex
    '"\\u000a"', // and \n for a line feed
    '"\\u00e9"', // and accents as UTF-8
    '"\\ud83d\\ude00"', // and a pair as its character
    '"\\x41"', // no such escape
    '"tab\there"', // a raw control character: not even JSON
  ];
  for (const s of refused) assert.equal(canonicalStringEnd(Buffer.from(s), 0, Buffer.byteLength(s)), -1, s);
  const invalid = [Buffer.from([0x22, 0x61, 0xff, 0x22]), Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), Buffer.from([0x22, 0xc3, 0x22])];
  for (const b of invalid) assert.equal(canonicalStringEnd(b, 0, b.length), -1, b.toString('hex'));
  // `end` in the middle of the string, on a plain byte: still never past it.
  const plainEnd = Buffer.from('"abcdef","x":"y"');
  for (let end = 1; end < 8; end++) assert.equal(canonicalStringEnd(plainEnd, 0, end), -1);
  assert.equal(canonicalStringEnd(plainEnd, 0, 8), 8);
  const mixed = Buffer.from('"\\u001f\\u0000é😀"');
  assert.equal(canonicalStringEnd(mixed, 0, mixed.length), mixed.length);
});

test('a needle found by its rare part is found wherever the whole stands, and only there', () => {
  const needle = new Needle(Buffer.from(',"toolUseResult":'), 6);
  const r = rng(5);
  for (let k = 0; k < 300; k++) {
    const bits = ['UseResult":', ',"toolUseResult":', '"toolUseResult":', 'x', ',"tool', '"'];
    const s = Array.from({ length: 12 }, () => bits[Math.floor(r() * bits.length)]).join('');
    const buf = Buffer.from(s);
    const from = Math.floor(r() * s.length);
    assert.equal(needle.find(buf, from), buf.indexOf(needle.bytes, from), s);
  }
  const buf = Buffer.from('a,"toolUseResult":1,"toolUseResult":2');
  const n = new Needles(buf, [needle]);
  assert.equal(n.next(0, 0), 1);
  assert.equal(n.next(0, 1), 1);
  assert.equal(n.next(0, 2), 19);
  assert.equal(n.next(0, 20), -1);
});

const at = '"timestamp":"2025-11-03T14:00:00.000Z"';
const resultLine = (content: string, rest = ''): string =>
  `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"c1","type":"tool_result","content":${JSON.stringify(content)}}]},${at},"toolUseResult":{"stdout":${JSON.stringify(content)}}${rest}}`;

function cut(line: string): { value: unknown; json: readonly Uint8Array[] | undefined; restored: boolean; text: string; whole: string | undefined } {
  const buf = Buffer.from(line);
  const c = cutLine(buf, 0, buf.length, new Needles(buf, LINE_NEEDLES));
  const value: unknown = JSON.parse(c.text);
  const restored = c.json === undefined ? true : restoreKept(value, c.json);
  return { value, json: c.json, restored, text: c.text, whole: c.whole?.() };
}

test('a long result is kept as bytes and put back as the text it was; the second copy is left out', () => {
  const text = `PASS src/a.test.ts\n${'  ✓ parses "week" dates\t\\ok\n'.repeat(30)}`;
  const line = resultLine(text);
  const c = cut(line);
  assert.equal(c.json?.length, 1);
  assert.ok(c.restored);
  assert.ok(!c.text.includes('toolUseResult') && !c.text.includes('week'), 'neither copy is parsed');
  assert.equal(c.whole, line);
  const v = c.value as { message: { content: { content: unknown }[] } };
  const kept = v.message.content[0]?.content;
  assert.ok(kept instanceof JsonStringBytes);
  assert.equal(kept.text, text);
  const expected = JSON.parse(line) as { toolUseResult?: unknown };
  delete expected.toolUseResult;
  assert.deepEqual(JSON.parse(JSON.stringify(v, (_k, x: unknown) => (x instanceof JsonStringBytes ? x.text : x))), expected);
});

test('what is not kept: short results, a line with a NUL elsewhere, a call input with a toolUseResult key', () => {
  const short = cut(resultLine('ok'));
  assert.equal(short.json, undefined);
  assert.ok(!short.text.includes('toolUseResult'), 'the second copy still goes');
  const nul = cut(resultLine('x'.repeat(400), ',"note":"\\u0000"'));
  assert.equal(nul.json, undefined, 'a NUL elsewhere would pass for the placeholder');
  assert.ok(!nul.text.includes('toolUseResult'));
  const call = `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"ls","toolUseResult":{"x":1}}}]}}`;
  assert.equal(cut(call).text, call, 'a line with a tool call is read as it is');
  // The content key twice: the parser keeps the last, so the kept bytes do not go back and the line is read whole.
  const twice = cut(resultLine('y'.repeat(400)).replace('"}]}', `","content":${JSON.stringify('z'.repeat(300))}}]}`));
  assert.equal(twice.json?.length, 1);
  assert.equal(twice.restored, false);
});

test('a passed-through result reads, copies and writes as its text; the writer refuses it over the line limit as any other', async (t) => {
  const text = `line "one"\n${'é\t'.repeat(300)}`;
  const json = new JsonStringBytes(Buffer.from(JSON.stringify(text)));
  const fields = { id: 'e1', parentId: null, timestamp: '2025-01-01T00:00:00.000Z', toolCallId: 'c1', toolName: 'Bash', isError: false };
  const e = resultWithJson(fields, json);
  const plain = {
    id: 'e1',
    parentId: null,
    timestamp: fields.timestamp,
    type: 'tool_result' as const,
    toolCallId: 'c1',
    toolName: 'Bash',
    content: text,
    isError: false,
  };
  assert.equal(JSON.stringify(e), JSON.stringify(plain));
  assert.deepEqual({ ...e }, plain);
  assert.ok(contentJsonOf(e) !== undefined);
  assert.equal(contentJsonOf({ ...e }), undefined, 'a copy is an ordinary entry');
  const dir = await tempDir(t);
  const write = async (name: string, entries: readonly object[], limit?: number): Promise<string> => {
    const path = join(dir, name);
    const w = await ImportWriter.create(path, limit);
    try {
      for (const x of entries) w.entry(x as typeof plain);
      await w.commit(path, { id: 's', cwd: '/p' });
    } finally {
      await w.abort();
    }
    return readFileSync(path, 'utf8').split('\n').slice(1).join('\n');
  };
  const failed = resultWithJson({ ...fields, id: 'e2', isError: true }, json);
  // A copy with another field is an ordinary entry the writer serializes whole: the same bytes again.
  const subagent = { ...e, id: 'e3', subagent: { id: 'sa_1', toolCallId: 'c0' } };
  assert.equal(
    await write('a.jsonl', [e, failed, subagent]),
    await write('b.jsonl', [plain, { ...plain, id: 'e2', isError: true }, { ...plain, id: 'e3', subagent: { id: 'sa_1', toolCallId: 'c0' } }]),
  );
  const limit = Buffer.byteLength(JSON.stringify(plain)) - 1;
  const refusal = async (x: object): Promise<string> => {
    try {
      await write(`c${Math.random()}.jsonl`, [x], limit);
    } catch (err) {
      assert.ok(err instanceof ImportRefused);
      return err.message;
    }
    return 'written';
  };
  assert.equal(await refusal(e), await refusal(plain));
  assert.match(await refusal(e), /bytes exceeds the \d+-byte line limit; nothing was written$/);
});

test('the exit code of a long passed-through result, read from its ends, is the one its whole text states', () => {
  const r = rng(11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const lines = [
    'Exit code 1',
    'Exit code: 0',
    'Process exited with code 2',
    'exit code 3',
    'Command exited with code 4.',
    '<returncode>5</returncode>',
    '{"metadata":{"exit_code":6}}',
    '',
    '   ',
    '\t\r',
    '\u2028',
    'exit status 7',
    'PASS src/a.test.ts',
    'é😀 "quoted" \\ back',
  ];
  // A backslash before an `n` in the text itself (`C:\\new`) must not pass for a line break.
  const filler = (n: number): string => Array.from({ length: n }, () => `  const v = parse("C:\\new\\${'x'.repeat(Math.floor(r() * 120))}");`).join('\n');
  const fields = { id: 'e', parentId: null, timestamp: 't', toolCallId: 'c', toolName: 'Bash', isError: false };
  let ends = 0;
  let docs = 0;
  for (let k = 0; k < 400; k++) {
    const parts = [pick(lines), pick(lines), filler(Math.floor(r() * 200)), filler(Math.floor(r() * 200)), pick(lines), pick(lines)];
    if (r() < 0.1) parts.splice(2, 0, 'y'.repeat(9000)); // a line longer than an end
    if (r() < 0.1) parts.unshift('\n'.repeat(5000)); // nothing but blank lines at the start
    if (r() < 0.15) parts.splice(3, 0, '<returncode>9</returncode>'); // the tag in the middle counts too
    let text = parts.join(pick(['\n', '\r\n', '\n\n']));
    // A whole JSON document, printed over many lines: only its whole text states the code.
    if (r() < 0.1) text = JSON.stringify({ metadata: { exit_code: 8 }, output: text.split('\n').map((l, i) => ({ i, l })) }, null, 2);
    if (text.startsWith('{') && text.length > 3000) docs++;
    const e = resultWithJson(fields, new JsonStringBytes(Buffer.from(JSON.stringify(text))));
    assert.equal(statedExitCode(e), exitCodeOf(text), JSON.stringify(text.slice(0, 80)));
    if (Buffer.byteLength(JSON.stringify(text)) >= 2048) ends++;
    assert.equal(statedExitCode({ ...e }), exitCodeOf(text));
  }
  assert.ok(ends > 100 && docs > 5, `${ends} long results, ${docs} long JSON documents`);
});
