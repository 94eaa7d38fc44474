// read_compaction_evidence paging (docs/behaviour.md#evidence): every item exactly once, filters, split items, projection labels, clear errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  EVIDENCE_TOOL_NAME,
  NO_EVIDENCE_MESSAGE,
  PROJECTION_LABEL,
  READ_COMPACTION_EVIDENCE_TOOL,
  detectTruncatedItems,
  evidenceMessageText,
  runEvidenceTool,
  runEvidenceToolFromArchive,
  splitText,
} from '../../../src/engine/compaction/evidence.js';
import type { ArchivedEvidence } from '../../../src/engine/compaction/evidence.js';
import { truncateToolResult } from '../../../src/engine/transcript/truncation.js';
import type { EvidenceArchive } from '../../../src/engine/ports.js';
import type { ModelMessage } from '../../../src/engine/transcript/modelInput.js';

const PAGE = 1_000;

function snapshot(excluded: ModelMessage[], summarizerInput: ModelMessage[] = [], truncatedItems?: number[]): ArchivedEvidence {
  return {
    operationId: 'op_abc',
    checkpointId: 'ck_123',
    createdAt: '2025-01-01T00:00:00.000Z',
    excluded,
    summarizerInput,
    ...(truncatedItems ? { truncatedItems } : {}),
  };
}

function ok(s: ArchivedEvidence | undefined, args: unknown, pageChars = PAGE): string {
  const r = runEvidenceTool(s, JSON.stringify(args), { pageChars });
  assert.equal(r.isError, false, r.content);
  return r.content;
}

function err(s: ArchivedEvidence | undefined, argsJson: string): string {
  const r = runEvidenceTool(s, argsJson, { pageChars: PAGE });
  assert.equal(r.isError, true, `expected a tool error, got: ${r.content}`);
  return r.content;
}

function pageCount(text: string): number {
  const m = /page (\d+) of (\d+)/.exec(text.split('\n')[0] ?? '');
  assert.ok(m, `no page header in: ${text.slice(0, 200)}`);
  return Number(m[2]);
}

interface Piece {
  readonly item: number;
  readonly part: number;
  readonly parts: number;
  readonly projection: boolean;
  readonly text: string;
}

/** Parses the item chunks of one page; chunks are separated by a blank line before the next label or marker. */
function pieces(page: string): Piece[] {
  const body = page.split('\n\n').slice(1).join('\n\n');
  const out: Piece[] = [];
  for (const chunk of ('\n\n' + body).split(/\n\n(?=\[#\d+ |== |\(More: )/)) {
    const m = /^\[#(\d+) [^\]]*?(?:, part (\d+) of (\d+))?\]( \(projection: truncated before archiving\))? ([\s\S]*)$/.exec(chunk);
    if (!m) continue;
    out.push({ item: Number(m[1]), part: Number(m[2] ?? 1), parts: Number(m[3] ?? 1), projection: m[4] !== undefined, text: m[5] ?? '' });
  }
  return out;
}

/** Reads every page and reassembles each item's text from its parts. */
function readAll(s: ArchivedEvidence, args: Record<string, unknown> = {}, pageChars = PAGE): { pages: string[]; items: Map<number, string>; order: number[] } {
  const first = ok(s, { ...args, page: 1 }, pageChars);
  const total = pageCount(first);
  const pages = [first];
  for (let p = 2; p <= total; p++) pages.push(ok(s, { ...args, page: p }, pageChars));
  const items = new Map<number, string>();
  const order: number[] = [];
  const seenParts = new Map<number, number>();
  for (const page of pages) {
    for (const piece of pieces(page)) {
      const expected = (seenParts.get(piece.item) ?? 0) + 1;
      assert.equal(piece.part, expected, `item #${piece.item} parts must come in order, once each`);
      seenParts.set(piece.item, expected);
      if (piece.part === 1) order.push(piece.item);
      items.set(piece.item, (items.get(piece.item) ?? '') + piece.text);
    }
  }
  return { pages, items, order };
}

const SAMPLE: ModelMessage[] = [
  { role: 'user', content: 'Fix the failing parser test', entryId: 'e1' },
  { role: 'assistant', content: 'Reading it.', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"src/parser.ts"}' }] },
  { role: 'tool', toolCallId: 'call_1', content: 'export function parse() {\n  throw new TypeError("bad token");\n}' },
  { role: 'assistant', content: 'The TypeError comes from parse().' },
];

test('the tool schema is read_compaction_evidence with page, query, section and result only', () => {
  assert.equal(READ_COMPACTION_EVIDENCE_TOOL.name, 'read_compaction_evidence');
  assert.equal(EVIDENCE_TOOL_NAME, 'read_compaction_evidence');
  const p = READ_COMPACTION_EVIDENCE_TOOL.parameters as {
    properties: Record<string, { type: string; enum?: string[]; minimum?: number }>;
    additionalProperties: boolean;
  };
  assert.deepEqual(Object.keys(p.properties).sort(), ['page', 'query', 'result', 'section']);
  assert.equal(p.properties.page?.type, 'integer');
  assert.equal(p.properties.page?.minimum, 1);
  assert.deepEqual(p.properties.section?.enum, ['excluded', 'summarizer_input']);
  assert.equal(p.additionalProperties, false);
});

test('one page shows the header, numbered items with roles, and tool calls', () => {
  const text = ok(snapshot(SAMPLE, [SAMPLE[0] as ModelMessage]), {});
  const lines = text.split('\n');
  assert.equal(lines[0], 'Evidence for checkpoint ck_123 (compaction op_abc), page 1 of 1');
  assert.match(text, /excluded #1–#4, summarizer_input #5\./);
  assert.match(text, /\[#1 user\] Fix the failing parser test/);
  assert.match(text, /\[#2 assistant\] Reading it\.\n→ read_file\(\{"path":"src\/parser\.ts"\}\) \[call call_1\]/);
  assert.match(text, /\[#3 tool call_1\] export function parse/);
  assert.match(text, /== summarizer_input: what the summarizer read ==\n\n\[#5 user\]/);
  assert.ok(!text.includes('(More:'), 'a single page does not invite another call');
});

test('paging covers every item exactly once, in order, splitting long items into consecutive parts', () => {
  const excluded: ModelMessage[] = [];
  for (let i = 0; i < 30; i++) {
    const long = i % 7 === 3;
    const body = long ? Array.from({ length: 120 }, (_, k) => `line ${k} of item ${i}`).join('\n') : `message ${i} ${'x'.repeat(i * 13)}`;
    excluded.push(i % 2 === 0 ? { role: 'user', content: body } : { role: 'tool', toolCallId: `call_${i}`, content: body });
  }
  const s = snapshot(excluded, excluded.slice(0, 5));
  const { pages, items, order } = readAll(s);
  assert.ok(pages.length > 5, 'this much evidence spans several pages');
  const all = [...s.excluded, ...s.summarizerInput];
  assert.deepEqual(
    order,
    all.map((_, i) => i + 1),
    'each item starts exactly once, in archive order',
  );
  all.forEach((m, i) => assert.equal(items.get(i + 1), evidenceMessageText(m), `item #${i + 1} is complete and unaltered`));
  for (const page of pages) {
    const itemChars = pieces(page).reduce((n, p) => n + p.text.length, 0);
    assert.ok(itemChars <= PAGE, `a page holds at most pageChars of item text (${itemChars})`);
  }
  const split = pieces(pages.join('\n\n')).filter((p) => p.item === 4);
  assert.ok(split.length >= 3, 'a 120-line item is split across pages');
  assert.ok(split.every((p) => p.parts === split.length));
  assert.match(pages[0] ?? '', /\(More: call read_compaction_evidence with page 2\.\)/);
});

test('property: any evidence pages into every item exactly once at any page size', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'B', ' ', '\n', 'é', '😀', '['), maxLength: 4_000 });
  const message = fc.oneof(
    text.map((content): ModelMessage => ({ role: 'user', content })),
    text.map((content): ModelMessage => ({ role: 'assistant', content })),
    text.map((content): ModelMessage => ({ role: 'tool', toolCallId: 'call_x', content })),
  );
  fc.assert(
    fc.property(fc.array(message, { maxLength: 12 }), fc.array(message, { maxLength: 4 }), fc.integer({ min: 1_000, max: 3_000 }), (ex, si, pageChars) => {
      const s = snapshot(ex, si);
      const { items, order } = readAll(s, {}, pageChars);
      const all = [...ex, ...si];
      assert.deepEqual(
        order,
        all.map((_, i) => i + 1),
      );
      all.forEach((m, i) => assert.equal(items.get(i + 1), evidenceMessageText(m)));
    }),
    { numRuns: 40 },
  );
});

test('splitText never halves a surrogate pair and loses nothing', () => {
  const s = '😀'.repeat(700);
  const parts = splitText(s, 801);
  assert.equal(parts.join(''), s);
  for (const p of parts) assert.ok(!/[\uD800-\uDBFF]$/.test(p) && !/^[\uDC00-\uDFFF]/.test(p), 'no lone surrogate at a cut');
});

test('query filters case-insensitively and keeps the archive numbering', () => {
  const text = ok(snapshot(SAMPLE), { query: 'typeerror' });
  assert.match(text, /Filter: query "typeerror": 2 of 4 items match\./);
  assert.deepEqual(
    pieces(text).map((p) => p.item),
    [3, 4],
  );
  const calls = ok(snapshot(SAMPLE), { query: 'SRC/PARSER' });
  assert.deepEqual(
    pieces(calls).map((p) => p.item),
    [2],
    'tool-call arguments are searchable',
  );
  const none = ok(snapshot(SAMPLE), { query: 'no such text' });
  assert.match(none, /page 1 of 1/);
  assert.match(none, /0 of 4 items match/);
  assert.match(none, /No items match these filters\./);
});

test('section selects excluded messages or the summarizer input', () => {
  const s = snapshot(SAMPLE, [{ role: 'user', content: 'summarizer only: TypeError digest' }]);
  assert.deepEqual(
    pieces(ok(s, { section: 'summarizer_input' })).map((p) => p.item),
    [5],
  );
  assert.deepEqual(
    pieces(ok(s, { section: 'excluded' })).map((p) => p.item),
    [1, 2, 3, 4],
  );
  const both = ok(s, { section: 'excluded', query: 'TYPEERROR' });
  assert.deepEqual(
    pieces(both).map((p) => p.item),
    [3, 4],
  );
  assert.match(both, /Filter: section excluded, query "TYPEERROR": 2 of 5 items match\./);
});

test('items already truncated are labelled as projections, explicitly or by their marker', () => {
  const long = Array.from({ length: 100 }, (_, i) => `row ${i}`).join('\n');
  const truncated = truncateToolResult(long);
  const ex: ModelMessage[] = [
    { role: 'tool', toolCallId: 'c1', content: long },
    { role: 'tool', toolCallId: 'c2', content: truncated },
  ];
  const si: ModelMessage[] = [{ role: 'tool', toolCallId: 'c1', content: truncated }];
  const s = snapshot(ex, si);
  assert.deepEqual(detectTruncatedItems(s), [1, 2]);
  const marked = { ...s, truncatedItems: detectTruncatedItems(s) };
  const got = readAll(marked, {}, 4_000);
  const byItem = new Map(got.pages.flatMap((p) => pieces(p)).map((p) => [p.item, p.projection]));
  assert.deepEqual(
    [...byItem.entries()],
    [
      [1, false],
      [2, true],
      [3, true],
    ],
  );
  assert.ok(got.pages.join('\n').includes(`[#3 tool c1] ${PROJECTION_LABEL}`));
  assert.ok(!ok(snapshot([{ role: 'user', content: 'plain' }]), {}).includes('projection'), 'unmarked items carry no label');
});

test('images are noted, never inlined', () => {
  const dataUrl = `data:image/png;base64,${'A'.repeat(5_000)}`;
  const text = ok(snapshot([{ role: 'user', content: 'see screenshot', images: [{ url: dataUrl }, { url: dataUrl }] }]), {});
  assert.match(text, /\[#1 user\] see screenshot\n\[2 images not shown\]/);
  assert.ok(!text.includes('base64'));
});

test('bad arguments become clear tool errors; lenient forms are accepted', () => {
  const s = snapshot(SAMPLE);
  assert.match(err(s, '{page: 2'), /^Invalid arguments for read_compaction_evidence: not valid JSON/);
  assert.match(err(s, '[1]'), /expected a JSON object/);
  assert.match(err(s, '{"page":0}'), /page must be an integer of at least 1/);
  assert.match(err(s, '{"page":1.5}'), /page must be an integer/);
  assert.match(err(s, '{"page":"two"}'), /page must be an integer/);
  assert.match(err(s, '{"section":"all"}'), /section must be one of "excluded", "summarizer_input"/);
  assert.match(err(s, '{"query":7}'), /query must be a string/);
  assert.match(err(s, '{"path":"/etc/passwd"}'), /unknown argument "path" \(allowed: page, query, section, result\)/);
  assert.match(err(s, '{"page":2}'), /^Page 2 is out of range: this evidence has 1 page with these filters \(page 1 to 1\)\.$/);
  assert.equal(runEvidenceTool(s, '', { pageChars: PAGE }).isError, false, 'no arguments means page 1');
  assert.equal(runEvidenceTool(s, '{"page":"1","query":null,"section":null}', { pageChars: PAGE }).isError, false);
});

test('without an installed capsule the tool says so', () => {
  assert.equal(err(undefined, '{}'), NO_EVIDENCE_MESSAGE);
});

test('runEvidenceToolFromArchive turns missing and unreadable snapshots into tool errors', async () => {
  const s = snapshot(SAMPLE);
  const archive = (load: EvidenceArchive['load']): EvidenceArchive => ({ save: async () => undefined, load, deleteAll: async () => undefined });
  const opts = { pageChars: PAGE };
  const none = await runEvidenceToolFromArchive(
    archive(async () => s),
    undefined,
    '{}',
    opts,
  );
  assert.deepEqual(none, { isError: true, content: NO_EVIDENCE_MESSAGE });
  const found = await runEvidenceToolFromArchive(
    archive(async (id) => (id === 'op_abc' ? s : undefined)),
    'op_abc',
    '{}',
    opts,
  );
  assert.equal(found.isError, false);
  assert.match(found.content, /compaction op_abc/);
  const missing = await runEvidenceToolFromArchive(
    archive(async () => undefined),
    'op_gone',
    '{}',
    opts,
  );
  assert.equal(missing.isError, true);
  assert.match(missing.content, /No compaction evidence was archived .*op_gone/);
  const broken = await runEvidenceToolFromArchive(
    archive(async () => Promise.reject(new Error('Compaction evidence op_abc is corrupt: not valid JSON'))),
    'op_abc',
    '{}',
    opts,
  );
  assert.deepEqual(broken, { isError: true, content: 'The compaction evidence could not be read: Compaction evidence op_abc is corrupt: not valid JSON' });
});

test('result: an archived tool result pages through its exact original; a bad or unknown id is a tool error', async () => {
  const { runEvidenceToolFromArchive } = await import('../../../src/engine/compaction/evidence.js');
  const original = 'y'.repeat(30_000);
  const saved = new Map<string, Parameters<EvidenceArchive['save']>[0]>();
  const archive: EvidenceArchive = {
    save: async (s) => void saved.set(s.operationId, s),
    load: async (id) => saved.get(id),
    deleteAll: async () => saved.clear(),
  };
  await archive.save({
    operationId: 'res_abc123',
    checkpointId: 'mcp x',
    createdAt: '2026-01-01T00:00:00.000Z',
    excluded: [{ role: 'tool', toolCallId: 'res_abc123', content: original }],
    summarizerInput: [],
  });
  const page = await runEvidenceToolFromArchive(archive, undefined, '{"result": "res_abc123", "page": 1}', { pageChars: 12_000 });
  assert.equal(page.isError, false, page.content);
  assert.match(page.content, /y{11000}/);
  const missing = await runEvidenceToolFromArchive(archive, undefined, '{"result": "res_nope"}', { pageChars: 12_000 });
  assert.deepEqual([missing.isError, missing.content], [true, 'No archived tool result "res_nope" in this session.']);
  const bad = await runEvidenceToolFromArchive(archive, undefined, '{"result": "../etc/passwd"}', { pageChars: 12_000 });
  assert.equal(bad.isError, true);
});
