// A Claude Code session imported as a stream (one line at a time, entries written as made) gives exactly what the in-memory importer gives, holds only a line or two, and fails as cleanly.
import { isUtf8 } from 'node:buffer';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ImportBuilder } from '../../../src/engine/import/builder.js';
import { ClaudeCodeConverter } from '../../../src/engine/import/claudeCode.js';
import { importTranscript } from '../../../src/engine/import/importTranscript.js';
import { ReportBuilder } from '../../../src/engine/import/report.js';
import { repairImported } from '../../../src/engine/transcript/importRepair.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { isSubagentEntry } from '../../../src/engine/transcript/subagentRef.js';
import { importSessionFile } from '../../../src/node/importStream.js';
import { ImportRefused, ImportWriter } from '../../../src/node/importWriter.js';
import { tempDir } from '../../support/tempDir.js';

const DIR = join(__dirname, '..', '..', 'fixtures', 'import');
const OPTS = { sessionId: 's1', cwd: '/elsewhere', now: '2025-01-01T00:00:00.000Z' } as const;

function counter(): { next(p: string): string } {
  let i = 0;
  return { next: (p) => `${p}${++i}` };
}

/** Entries with their generated ids replaced by the order they first appear in, so two runs compare. */
function normalized(entries: readonly Entry[]): unknown[] {
  const names = new Map<string, string>();
  const name = (id: string | null | undefined): string | null | undefined => (id == null ? id : (names.get(id) ?? id));
  for (const e of entries) names.set(e.id, `E${names.size}`);
  return entries.map((e) => {
    const o: Record<string, unknown> = { ...e, id: name(e.id), parentId: name(e.parentId) };
    if (e.type === 'leaf') o['targetId'] = name(e.targetId);
    if (e.subagent?.anchorId !== undefined) o['subagent'] = { ...e.subagent, anchorId: name(e.subagent.anchorId) };
    return o;
  });
}

function inMemory(text: string): { header: unknown; entries: unknown[]; report: unknown; repairs: readonly string[] } {
  const ids = counter();
  const r = importTranscript(text, { ...OPTS, ids });
  const chain = r.entries.every((e, i) => e.parentId === (i === 0 ? null : (r.entries[i - 1]?.id ?? null)));
  const fixed = chain ? repairImported(r.entries, (p) => ids.next(p)) : { entries: r.entries, repairs: [] };
  return { header: { cwd: r.header.cwd, title: r.header.title }, entries: normalized(fixed.entries), report: r.report, repairs: fixed.repairs };
}

async function streamed(
  dir: string,
  text: string | Buffer,
  name: string,
): Promise<{ header: unknown; entries: unknown[]; report: unknown; repairs: readonly string[] }> {
  const input = join(dir, `${name}.in.jsonl`);
  const output = join(dir, `${name}.out.jsonl`);
  await writeFile(input, text);
  const r = await importSessionFile(input, output, { ...OPTS, ids: counter() });
  const bytes = readFileSync(output);
  assert.ok(isUtf8(bytes), `${name}: the session is UTF-8`);
  const lines = bytes.toString('utf8').trimEnd().split('\n');
  // Every line is written as JSON.stringify writes it, also where a result's bytes were passed through unparsed.
  for (const l of lines) assert.equal(JSON.stringify(JSON.parse(l)), l, `${name}: a line in canonical form`);
  const header = JSON.parse(lines[0] ?? '{}') as { cwd: string; title?: string };
  const entries = lines.slice(1).map((l) => JSON.parse(l) as Entry);
  assert.equal(readdirSync(dir).filter((f) => f.includes('.importing.')).length, 0, 'no temporary file is left');
  return { header: { cwd: header.cwd, title: header.title }, entries: normalized(entries), report: r.report, repairs: r.repairs };
}

const line = (o: Record<string, unknown>): string => JSON.stringify({ sessionId: 'x', cwd: '/home/u/p', timestamp: '2025-11-03T14:00:00.000Z', ...o });
const user = (uuid: string, content: unknown): string => line({ type: 'user', uuid, message: { role: 'user', content } });
const assistant = (uuid: string, id: string, content: unknown[]): string =>
  line({ type: 'assistant', uuid, message: { id, role: 'assistant', model: 'claude-x', content } });
const result = (uuid: string, callId: string, content: string): string => user(uuid, [{ type: 'tool_result', tool_use_id: callId, content }]);

/**
 * More than one read chunk (1 MB): a result written after the next message, far down the file, with the
 * `"tool_use_id"` key of another result cut by the chunk's end; a torn line, a line nested too deep, and a call
 * that never gets a result.
 */
function longSession(farLate = true): string {
  const out: string[] = [user('u0', 'Fix the parser please')];
  out.push(assistant('a0', 'm0', [{ type: 'tool_use', id: 'late', name: 'Bash', input: { command: 'touch made.txt' } }]));
  if (!farLate) out.push(result('rl', 'late', 'done'));
  out.push(assistant('a1', 'm1', [{ type: 'text', text: 'meanwhile' }]));
  for (let i = 0; i < 300; i++) {
    out.push(assistant(`b${i}`, `mb${i}`, [{ type: 'tool_use', id: `c${i}`, name: 'Read', input: { file_path: `src/f${i}.ts` } }]));
    out.push(result(`r${i}`, `c${i}`, `${i}: ${'x'.repeat(3000)}`));
  }
  out.push('{"type": "user", "message": {"role": "us');
  out.push(`${'['.repeat(1500)}${']'.repeat(1500)}`);
  // Pad so that the next result's key straddles the 1 MB boundary.
  out.push(assistant('ak', 'mk', [{ type: 'tool_use', id: 'cut', name: 'Read', input: { file_path: 'k.ts' } }]));
  const before = Buffer.byteLength(`${out.join('\n')}\n`);
  const probe = result('rk', 'cut', 'ok');
  const keyAt = probe.indexOf('"tool_use_id"');
  const pad = (1 << 20) - 6 - before - keyAt - '{"type":"system","pad":""}\n'.length - '{"type":"summary"}\n'.length;
  assert.ok(pad > 0);
  out.push(JSON.stringify({ type: 'system', pad: 'p'.repeat(pad) }));
  out.push(JSON.stringify({ type: 'summary' }));
  out.push(probe);
  if (farLate) out.push(result('rl', 'late', 'done'));
  out.push(assistant('az', 'mz', [{ type: 'tool_use', id: 'never', name: 'Read', input: { file_path: 'z.ts' } }]));
  const text = `${out.join('\n')}\n`;
  const key = text.indexOf('"tool_use_id":"cut"');
  assert.equal(key, (1 << 20) - 6, 'the key is cut by the chunk end');
  return text;
}

/**
 * Results with Claude Code's second copy of the output (`toolUseResult`, which the stream leaves out of each line
 * before parsing it): in every form, in a line damaged elsewhere (reported as the in-memory importer reports it),
 * and damaged inside the copy or cut short within it (then not cut: read whole, and refused whole).
 */
function secondCopies(): string {
  const copy = (uuid: string, callId: string, content: string, toolUseResult: unknown): string =>
    JSON.stringify({
      type: 'user',
      uuid,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content }] },
      toolUseResult,
      timestamp: '2025-11-03T14:00:00.000Z',
    });
  const out: string[] = [user('u0', 'Read them')];
  const copies: unknown[] = [
    { stdout: 'a\\"b', stderr: '', interrupted: false },
    'plain text',
    [1, { x: ['}'] }],
    null,
    { file: { content: ',"toolUseResult":{' } },
  ];
  copies.forEach((c, i) => {
    out.push(assistant(`a${i}`, `m${i}`, [{ type: 'tool_use', id: `c${i}`, name: 'Read', input: { file_path: `f${i}.ts` } }]));
    out.push(copy(`r${i}`, `c${i}`, `result ${i}`, c));
  });
  out.push(assistant('a8', 'm8', [{ type: 'tool_use', id: 'c8', name: 'Bash', input: { command: 'ls' } }]));
  // Damaged after the copy: refused with the same message as when read whole.
  out.push(
    '{"type":"user","uuid":"r8","toolUseResult":{"stdout":"xxxxxxxx"},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c8","content":"x"}],}}',
  );
  // Damaged inside the copy where its outline still holds (a doubled comma, a raw tab): the copy is left out both
  // ways, so the result is kept.
  out.push(assistant('a9', 'm9', [{ type: 'tool_use', id: 'c9', name: 'Bash', input: { command: 'ls' } }]));
  out.push(
    '{"type":"user","uuid":"r8b","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c9","content":"kept"}]},"toolUseResult":{"a":1,,"stdout":"x\ty"}}',
  );
  // Damaged inside the copy: not cut, refused whole.
  out.push('{"type":"user","uuid":"r9","message":{"role":"user","content":"hi"},"toolUseResult":{"stdout":oops}}');
  out.push('{"type":"user","uuid":"r10","message":{"role":"user","content":"cut short"},"toolUseResult":{"stdout":"x');
  return `${out.join('\n')}\n`;
}

/** A text of `n` characters drawn from everything a JSON string may hold: controls, quotes, backslashes, accents, astral and lone surrogates. */
function anyText(r: () => number, n: number): string {
  const pool = ['\n', '\t', '\r', '\u0000', '\u001f', '\b', '"', '\\', '/', 'é', '\u2028', '\u{1F600}', '\ud800', '\udc00', '\u007f', 'x', 'y', ' ', '<', '{'];
  let out = '';
  while (out.length < n) out += r() < 0.5 ? 'abcdefgh ' : (pool[Math.floor(r() * pool.length)] ?? '');
  return out;
}

/**
 * Long tool results as Claude Code writes them (`"type":"tool_result","content":"…"`), which the stream keeps as
 * their JSON bytes: any text; the same spelled in ways JSON.stringify never writes (`\/`, `\u0041`, an upper-case
 * `\u001F`, `\u000a`: read the ordinary way); a raw control character and an invalid UTF-8 byte inside one; a NUL
 * elsewhere in the line; the content key twice; a `toolUseResult` key inside a tool call's input (never cut).
 */
function passedThrough(): Buffer {
  let seed = 7;
  const r = (): number => {
    seed = (seed * 1_664_525 + 1_013_904_223) >>> 0;
    return seed / 2 ** 32;
  };
  const at = '"timestamp":"2025-11-03T14:00:00.000Z"';
  const ccResult = (uuid: string, callId: string, contentJson: string, rest = ''): string =>
    `{"type":"user","uuid":"${uuid}","message":{"role":"user","content":[{"tool_use_id":"${callId}","type":"tool_result","content":${contentJson}${rest}}]},${at},"toolUseResult":{"stdout":${contentJson}}}`;
  const lines: (string | Buffer)[] = [user('u0', 'Run them all')];
  let i = 0;
  const call = (name = 'Bash', input: Record<string, unknown> = { command: `echo ${i}` }): string => {
    i++;
    lines.push(assistant(`a${i}`, `m${i}`, [{ type: 'tool_use', id: `c${i}`, name, input }]));
    return `c${i}`;
  };
  for (let k = 0; k < 40; k++) {
    const text = anyText(r, 200 + Math.floor(r() * 3000));
    lines.push(ccResult(`r${k}`, call(), JSON.stringify(text)));
  }
  const long = JSON.stringify(`Exit code 2\n${'line of src/a.ts output\n'.repeat(40)}done`);
  lines.push(ccResult('s1', call(), long.replace('/', '\\/')));
  lines.push(ccResult('s1b', call(), long.replace('line', '\\u006cine')));
  lines.push(ccResult('s2', call(), JSON.stringify(`${'x'.repeat(300)}\u001f`).replace('\\u001f', '\\u001F')));
  lines.push(ccResult('s3', call(), long.replace('\\n', '\\u000a')));
  lines.push(ccResult('s4', call(), long.replace('done', 'do\tne')));
  const bad = Buffer.from(ccResult('s5', call(), long));
  bad[bad.indexOf('done')] = 0xff;
  lines.push(bad);
  lines.push(ccResult('s6', call(), long, ',"note":"\\u0000"'));
  lines.push(ccResult('s7', call(), long, `,"content":${JSON.stringify(`second ${'y'.repeat(400)}`)}`));
  lines.push(ccResult('s8', call(), long, `,"content":"short"`));
  // A long result written before its call (a stray the report still counts, once the call comes).
  lines.push(ccResult('s10', 'early', long));
  lines.push(assistant('a-early', 'm-early', [{ type: 'tool_use', id: 'early', name: 'Bash', input: { command: 'make' } }]));
  const input = { command: 'ls', note: 'a', toolUseResult: { keep: 'this' } };
  const nested = call('Bash', input);
  lines.push(ccResult('s9', nested, long));
  return Buffer.concat(lines.map((l) => Buffer.concat([typeof l === 'string' ? Buffer.from(l) : l, Buffer.from('\n')])));
}

test('streamed and in-memory imports of Claude Code sessions give the same header, entries, report and repairs', async (t) => {
  const dir = await tempDir(t);
  const cases: [string, string | Buffer][] = [
    ['sidechains', readFileSync(join(DIR, 'claude-code.jsonl'), 'utf8')],
    ['parallel', readFileSync(join(DIR, 'claude-code-parallel.jsonl'), 'utf8')],
    ['long', longSession()],
    ['second copies', secondCopies()],
    ['passed through', passedThrough()],
  ];
  for (const [name, text] of cases) {
    const a = inMemory(text.toString());
    const b = await streamed(dir, text, name);
    assert.deepEqual(b.header, a.header, name);
    assert.deepEqual(b.report, a.report, name);
    assert.deepEqual(b.repairs, a.repairs, name);
    assert.deepEqual(b.entries, a.entries, name);
  }
  const long = inMemory(longSession());
  const byCall = new Map<string, { readonly content: string; readonly interrupted?: boolean }>();
  for (const e of long.entries as Entry[]) if (e.type === 'tool_result') byCall.set(e.toolCallId, e);
  assert.equal(byCall.get('late')?.content, 'done', 'the late result is paired');
  assert.equal(byCall.get('cut')?.content, 'ok');
  assert.equal(byCall.get('never')?.interrupted, true);
  assert.match(JSON.stringify(long.report), /unreadable line 604.*unreadable line 605.*nested more than 1,000 levels/);
  const copies = inMemory(secondCopies()).entries as Entry[];
  assert.ok(
    copies.some((e) => e.type === 'tool_result' && e.content === 'kept'),
    'a result whose unread copy is damaged is kept',
  );
  const through = inMemory(passedThrough().toString()).entries as Entry[];
  const calls = through.flatMap((e) => (e.type === 'assistant' ? e.toolCalls : []));
  assert.deepEqual(
    JSON.parse(calls.at(-1)?.arguments ?? ''),
    { command: 'ls', note: 'a', toolUseResult: { keep: 'this' } },
    'a call input keeps its toolUseResult key',
  );
  assert.match(JSON.stringify(inMemory(passedThrough().toString()).report), /unreadable line/, 'the line with a raw tab is refused');
});

test('the converter holds a line or two of a well-formed session, and a streamed builder keeps no entries', () => {
  const kept: Entry[] = [];
  const b = new ImportBuilder({ ...OPTS, ids: counter(), sink: (e) => kept.push(e) }, new ReportBuilder());
  const lines = longSession(false)
    .split('\n')
    .filter((l) => l !== '')
    .flatMap((l, i) => {
      try {
        return [{ n: i + 1, value: JSON.parse(l) as unknown }];
      } catch {
        return [];
      }
    });
  const last = new Map<string, number>();
  for (const { n, value } of lines) {
    const m = /"tool_use_id":"([^"]+)"/.exec(JSON.stringify(value));
    if (m?.[1] !== undefined && (value as { type?: unknown }).type === 'user') last.set(m[1], n);
  }
  const c = new ClaudeCodeConverter(b, (id) => last.get(id));
  let most = { lines: 0, results: 0 };
  for (const { n, value } of lines) {
    c.line(n, value);
    const now = c.backlog;
    if (now.lines + now.results > most.lines + most.results && n > 4) most = now;
  }
  c.end();
  assert.ok(most.lines <= 2 && most.results <= 2, JSON.stringify(most));
  assert.equal(b.finish('end').entries.length, 0, 'the main chain went to the sink');
  assert.ok(kept.length > 600 && !kept.some(isSubagentEntry));
});

test('a line over the session line limit refuses the import in one line and leaves no file', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  const w = await ImportWriter.create(path, 1000);
  w.entry({ type: 'user', id: 'e1', parentId: null, timestamp: OPTS.now, content: 'short' });
  assert.throws(
    () => w.entry({ type: 'user', id: 'e2', parentId: 'e1', timestamp: OPTS.now, content: 'é'.repeat(600) }),
    (e: unknown) =>
      e instanceof ImportRefused && /^Cannot append user entry e2: \d+ bytes exceeds the 1000-byte line limit; nothing was written$/.test(e.message),
  );
  await w.abort();
  assert.deepEqual(readdirSync(dir), []);
});
