// The streamed Claude Code import writes byte for byte the session it wrote before it was made faster: golden hashes of the output file (header time masked), the report and the repairs, for a mixed multi-chunk session and the sidechain fixture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { importSessionFile } from '../../../src/node/importStream.js';
import { tempDir } from '../../support/tempDir.js';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'import');
const OPTS = { sessionId: 's1', cwd: '/elsewhere', now: '2025-01-01T00:00:00.000Z' } as const;

/** A deterministic generator: the same bytes on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['the', 'parser', 'fails', 'on', 'week', 'dates', 'é', 'naïve', '日本語', '😀', 'tab\there', 'quote"d', 'back\\slash', '\u2028', '<tag>'];

/**
 * About 5 MB of Claude Code lines over several read chunks and writer buffers: multi-byte text cut by chunk ends,
 * results up to 400 KB, late parallel results, CRLF endings, a byte-order mark, blank, torn, foreign and too-deep
 * lines, bookkeeping and system lines, thinking and image blocks, escaped ids, a stray result and a call never answered.
 */
function mixedSession(): string {
  const r = rng(7);
  const prose = (n: number): string => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)] ?? 'x').join(' ');
  let n = 0;
  const ts = (): string => new Date(1_760_000_000_000 + n * 1000).toISOString();
  const line = (o: Record<string, unknown>): string =>
    JSON.stringify({ parentUuid: null, isSidechain: false, cwd: '/home/dev/proj', sessionId: 'x', ...o, uuid: `u${++n}`, timestamp: ts() });
  const user = (content: unknown, extra: Record<string, unknown> = {}): string => line({ type: 'user', message: { role: 'user', content }, ...extra });
  const assistant = (id: string, content: unknown[], model = 'claude-x'): string =>
    line({ type: 'assistant', message: { id, role: 'assistant', model, content, usage: { input_tokens: 1 } } });
  const result = (id: string, content: unknown, isError = false): string =>
    user([{ type: 'tool_result', tool_use_id: id, content, is_error: isError }], { toolUseResult: { stdout: 'copy' } });
  const out: string[] = [`\ufeff${line({ type: 'summary', summary: 'Fix ISO week parsing', leafUuid: 'x' })}`];
  out.push(user(`Fix the parser ${prose(12)}\nsecond line`));
  for (let turn = 0; turn < 60; turn++) {
    out.push(user(`Turn ${turn}: ${prose(20)}`));
    if (turn % 7 === 3) out.push(user([{ type: 'text', text: `<system-reminder>${prose(8)}</system-reminder>` }], { isMeta: true }));
    for (let s = 0; s < 4; s++) {
      const msg = `msg_${turn}_${s}`;
      if (r() < 0.4) out.push(assistant(msg, [{ type: 'thinking', thinking: prose(30), signature: 'sig' }]));
      out.push(assistant(msg, [{ type: 'text', text: prose(25) }]));
      const ids = r() < 0.3 ? [`toolu_${turn}_${s}_a`, `toolu_${turn}_${s}_\\"b\\u00e9`] : [`toolu_${turn}_${s}`];
      for (const id of ids)
        out.push(assistant(msg, [{ type: 'tool_use', id, name: r() < 0.5 ? 'Bash' : 'Read', input: { command: `touch f${s}.ts && ${prose(3)}` } }]));
      if (ids.length > 1) out.push(assistant(`${msg}_next`, [{ type: 'text', text: 'meanwhile' }]));
      for (const id of ids) {
        const big = r() < 0.05;
        const body = big ? prose(60_000) : `${prose(40)}\nexit code ${Math.floor(r() * 3)}`;
        const content =
          r() < 0.2
            ? [
                { type: 'text', text: body },
                { type: 'image', source: { type: 'base64', data: 'AAAA' } },
              ]
            : body;
        out.push(result(id, content, r() < 0.1));
      }
    }
    out.push(assistant(`msg_end_${turn}`, [{ type: 'text', text: prose(15) }], turn % 5 === 0 ? '<synthetic>' : 'claude-y'));
    if (turn % 10 === 9) out.push(line({ type: 'file-history-snapshot', messageId: `m${turn}`, snapshot: {} }));
    if (turn % 13 === 5) out.push(line({ type: 'system', subtype: turn % 2 === 0 ? 'compact_boundary' : 'informational', content: 'x' }));
    if (turn % 11 === 4) out.push('', '   ', '{"type": "user", "message": {"role": "us', 'not json at all', `${'['.repeat(1100)}${']'.repeat(1100)}`);
    if (turn % 17 === 8) out.push(line({ type: 'queue-operation', operation: 'enqueue' }), line({ type: 'weird' }), '[1,2]');
  }
  out.push(result('toolu_stray', 'nobody asked'));
  out.push(user('last words', { timestamp: 'not a time' }));
  out.push(assistant('msg_last', [{ type: 'tool_use', id: 'never', name: 'Bash', input: { command: 'sleep 1' } }]));
  return out.map((l, i) => (i % 9 === 4 ? `${l}\r\n` : `${l}\n`)).join('');
}

function counter(): { next(p: string): string } {
  let i = 0;
  return { next: (p) => `${p}${++i}` };
}

const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

async function importedHashes(dir: string, name: string, text: string): Promise<{ file: string; report: string; lines: number }> {
  const input = join(dir, `${name}.jsonl`);
  const output = join(dir, `${name}.out.jsonl`);
  await writeFile(input, text);
  const r = await importSessionFile(input, output, { ...OPTS, ids: counter() });
  const file = readFileSync(output, 'utf8').replace(/"createdAt":"[^"]*"/, '"createdAt":"T"');
  return { file: sha(file), report: sha(JSON.stringify({ report: r.report, repairs: r.repairs, entries: r.entries })), lines: file.split('\n').length - 1 };
}

test('a mixed multi-chunk Claude Code session imports to the same bytes, report and repairs as before', async (t) => {
  const dir = await tempDir(t);
  const text = mixedSession();
  assert.ok(text.length > 3 << 20, `${text.length}`);
  assert.deepEqual(await importedHashes(dir, 'mixed', text), { file: 'd6657f4800cae519', report: 'e2e33e9c62a7ba60', lines: 768 });
});

test('a Claude Code session with sidechains (kept whole, then written) imports to the same bytes as before', async (t) => {
  const dir = await tempDir(t);
  const cases = ['claude-code.jsonl', 'claude-code-parallel.jsonl'].map((f) => readFileSync(join(FIXTURES, f), 'utf8'));
  const got = [];
  for (const [i, text] of cases.entries()) got.push(await importedHashes(dir, `f${i}`, text));
  assert.deepEqual(got, [
    { file: '749534fa46366f02', report: '53c538ccf3697cb9', lines: 32 },
    { file: '3d26277849aa8679', report: '383653d5af316be6', lines: 15 },
  ]);
});
