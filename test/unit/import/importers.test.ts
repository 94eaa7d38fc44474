// Every importer on a fixture in its native format: tool calls, errors, reasoning, injected text, reused ids; the ledger's recall against what the transcript did.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildLedger, type Ledger } from '../../../src/engine/compaction/ledger.js';
import { ImportError, importTranscript, type TranscriptImport } from '../../../src/engine/import/importTranscript.js';
import { formatImportReport, type ImportFormat } from '../../../src/engine/import/report.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';

const DIR = join(__dirname, '..', '..', 'fixtures', 'import');

interface Expected {
  readonly root: string | null;
  readonly filesModified: readonly string[];
  readonly renamed: readonly (readonly [string, string])[];
  readonly filesRead: readonly string[];
  readonly commands: readonly (readonly [string, boolean])[];
  readonly lastVerification: readonly [string, boolean, string];
  readonly originalTask: string;
  readonly latestRequest: string;
}

const FIXTURES: readonly (readonly [string, ImportFormat, string])[] = [
  ['claude-code.jsonl', 'claude-code', 'claude-code.expected.json'],
  ['codex.jsonl', 'codex', 'codex.expected.json'],
  ['anthropic.json', 'anthropic', 'anthropic.expected.json'],
  ['swe-agent.traj', 'swe-agent', 'swe-agent.expected.json'],
  ['mini-swe-agent.traj.json', 'mini-swe-agent', 'mini-swe-agent.expected.json'],
  ['openai.json', 'openai', 'openai.expected.json'],
];

function run(text: string, from?: ImportFormat): TranscriptImport {
  let i = 0;
  return importTranscript(text, {
    sessionId: 's1',
    cwd: '/elsewhere',
    now: '2025-01-01T00:00:00.000Z',
    ids: { next: (p) => `${p}${++i}` },
    ...(from ? { from } : {}),
  });
}

function ledgerOf(r: TranscriptImport): Ledger {
  const tree = SessionTree.from(r.entries);
  assert.deepEqual(tree.problems, [], 'the imported entries form a valid tree');
  return buildLedger(tree.branch(), undefined, { root: r.header.cwd });
}

for (const [file, format, expectedFile] of FIXTURES) {
  test(`${format}: detected, converted, and its ledger lists every changed file, every command with its status, the last test run`, () => {
    const text = readFileSync(join(DIR, file), 'utf8');
    const exp = JSON.parse(readFileSync(join(DIR, expectedFile), 'utf8')) as Expected;
    const r = run(text);
    assert.equal(r.report.format, format);
    if (exp.root !== null) assert.equal(r.header.cwd, exp.root);
    const l = ledgerOf(r);
    assert.deepEqual([...l.filesModified].sort(), [...exp.filesModified].sort(), 'files changed');
    assert.deepEqual(
      l.renamed.map((x) => [x.from, x.to]),
      exp.renamed.map((x) => [...x]),
      'renames',
    );
    assert.deepEqual([...l.filesRead].sort(), [...exp.filesRead].sort(), 'files read');
    assert.deepEqual(
      l.commands.map((c) => [c.command, c.ok]),
      exp.commands.map((c) => [...c]),
      'commands with status',
    );
    const v = l.lastVerification;
    assert.deepEqual(v && [v.command, v.passed, v.summary], [...exp.lastVerification], 'last verification');
    assert.equal(l.originalTask, exp.originalTask);
    assert.equal(l.latestRequest, exp.latestRequest);
    assert.equal(run(text, format).entries.length, r.entries.length, '--from gives the same result');
    const lines = formatImportReport(r.report);
    assert.match(lines.join('\n'), /^format: .*\nkept: .*\ninferred: .*\ndropped: /);
  });
}

test('claude-code: thinking, bookkeeping lines and the compact boundary are reported; the sidechain is kept on its own branch', () => {
  const r = run(readFileSync(join(DIR, 'claude-code.jsonl'), 'utf8'));
  const what = r.report.dropped.map((d) => d.what);
  assert.ok(what.includes('thinking block'));
  assert.ok(what.includes('summary line'));
  assert.equal(r.report.kept.compactBoundaries, 1);
  assert.equal(r.report.kept.sidechainEntries, 3);
  const tree = SessionTree.from(r.entries);
  const main = new Set(tree.branch().map((e) => e.id));
  const side = r.entries.filter((e) => !main.has(e.id) && e.type !== 'leaf');
  assert.equal(side.length, 3);
  assert.ok(side.some((e) => e.type === 'assistant' && e.toolCalls.some((c) => c.name === 'Grep')));
  const injected = r.entries.filter((e) => e.type === 'user' && e.injected === true).map((e) => (e.type === 'user' ? e.content.slice(0, 20) : ''));
  assert.equal(injected.length, 3, `injected: ${injected.join(' | ')}`);
  const failedEdit = r.entries.find((e) => e.type === 'tool_result' && e.content.startsWith('<tool_use_error>'));
  assert.equal(failedEdit?.type === 'tool_result' && failedEdit.isError, true);
});

test('openai: reasoning_content is kept on the assistant entry and counted; a reused call id is renamed', () => {
  const r = run(readFileSync(join(DIR, 'openai.json'), 'utf8'));
  assert.equal(r.report.kept.reasoning, 2);
  assert.equal(r.report.kept.renamedIds, 1);
  const first = r.entries.find((e) => e.type === 'assistant' && e.reasoningContent !== undefined);
  assert.equal(first?.type === 'assistant' ? first.reasoningContent : undefined, 'I should run the tests first to see what fails.');
  const ids = r.entries.flatMap((e) => (e.type === 'assistant' ? e.toolCalls.map((c) => c.id) : []));
  assert.equal(new Set(ids).size, ids.length);
});

test('codex: exit codes from exec events, apply_patch creations, a reused call id renamed', () => {
  const r = run(readFileSync(join(DIR, 'codex.jsonl'), 'utf8'));
  assert.equal(r.report.kept.renamedIds, 1);
  const l = ledgerOf(r);
  assert.deepEqual(l.filesCreated, ['tests/verbose.rs']);
  assert.deepEqual(
    l.commands.map((c) => c.exitCode),
    [0, 101, 0, 1, 0],
  );
});

test('bad input: one clear line naming what it looked like and the first line it could not read', () => {
  const fail = (text: string, from?: ImportFormat): string => {
    try {
      run(text, from);
    } catch (err) {
      assert.ok(err instanceof ImportError, String(err));
      assert.equal(err.message.split('\n').length, 1);
      return err.message;
    }
    throw new Error('expected an ImportError');
  };
  assert.match(fail('{"foo": 1, "bar": 2}'), /looked like a JSON object with keys foo, bar/);
  assert.match(fail('{"a":1}\n{"b":2}\nnot json\n'), /looked like JSON lines whose first record has keys a.*first unreadable line 3/);
  assert.match(fail('hello world'), /neither JSON nor JSON lines.*line 1/);
  assert.match(fail(''), /empty/);
  assert.match(
    fail('[{"role":"user","content":"x"}]', 'codex'),
    /Codex CLI rollout JSONL: no conversation found; every record was skipped, e.g. 'untyped' line \(not a rollout record\)/,
  );
  assert.match(fail('{"history": "nope"}', 'swe-agent'), /SWE-agent.*"history" or a "trajectory" array/);
});

test('a torn or broken line inside a JSONL session is dropped and named, the rest imported', () => {
  const lines = readFileSync(join(DIR, 'claude-code.jsonl'), 'utf8').split('\n');
  lines.splice(8, 0, '{"type":"user","message":{"role":"user","content":"cut of');
  const r = run(lines.join('\n'));
  const bad = r.report.dropped.find((d) => d.what === 'unreadable line 9');
  assert.ok(bad, JSON.stringify(r.report.dropped));
  assert.ok(r.entries.length > 20);
});

test('Codex Desktop rollout: the requests come from user_message events, exit codes from "Process exited with code N"', () => {
  const r = run(readFileSync(join(DIR, 'codex-desktop.jsonl'), 'utf8'));
  assert.equal(r.report.format, 'codex');
  const people = r.entries.filter((e) => e.type === 'user' && e.injected !== true).map((e) => (e.type === 'user' ? e.content : ''));
  assert.deepEqual(people, ['The cart total test fails, please fix it.', 'continue']);
  const results = r.entries.filter((e) => e.type === 'tool_result');
  assert.deepEqual(
    results.map((e) => (e.type === 'tool_result' ? [e.effects?.exitCode ?? null, e.isError] : [])),
    [
      [1, true],
      [0, false],
      [0, false],
      [0, false],
    ],
  );
  const ledger = ledgerOf(r);
  assert.deepEqual(ledger.filesModified, ['src/cart.ts']);
  assert.equal(ledger.originalTask, 'The cart total test fails, please fix it.');
  assert.equal(ledger.latestRequest, 'continue');
  assert.deepEqual(ledger.lastVerification && [ledger.lastVerification.command, ledger.lastVerification.passed], ['npm test -- cart', true]);
});

test("Claude Code: parallel tool results pair by tool_use_id wherever the file wrote them; the latest request is the person's, not injected text", () => {
  const r = run(readFileSync(join(DIR, 'claude-code-parallel.jsonl'), 'utf8'));
  assert.equal(r.report.format, 'claude-code');
  const results = r.entries.filter((e) => e.type === 'tool_result');
  assert.deepEqual(
    results.map((e) => (e.type === 'tool_result' ? [e.toolCallId, e.content.includes('interrupted')] : [])),
    [
      ['toolu_A', false],
      ['toolu_B', false],
      ['toolu_C', false],
      ['toolu_D', false],
    ],
  );
  // The two parallel reads stay one assistant message, each result right after it.
  const first = r.entries.find((e) => e.type === 'assistant');
  assert.deepEqual(first?.type === 'assistant' && first.toolCalls.map((c) => c.id), ['toolu_A', 'toolu_B']);
  assert.equal(r.report.warnings.length, 0, r.report.warnings.join('\n'));
  const ledger = ledgerOf(r);
  assert.deepEqual(ledger.filesModified, ['src/date.ts'], 'the Write whose result came late is in the ledger');
  assert.equal(ledger.latestRequest, 'continue');
  assert.equal(ledger.originalTask, 'Refactor the date helpers in src/date.ts and src/week.ts');
});

test('a bare SWE-agent history array is accepted with --from swe-agent', () => {
  const r = run(readFileSync(join(DIR, 'swe-agent-history.json'), 'utf8'), 'swe-agent');
  assert.equal(r.report.format, 'swe-agent');
  const whole = run(readFileSync(join(DIR, 'swe-agent.traj'), 'utf8'));
  // Everything the history holds comes through as in the whole .traj (the submission lives in info, which a bare array lacks).
  const kinds = (x: TranscriptImport): string[] =>
    x.entries
      .filter((e) => e.type === 'user' || e.type === 'tool_result')
      .map((e) => (e.type === 'user' || e.type === 'tool_result' ? e.content.slice(0, 40) : ''));
  assert.deepEqual(kinds(r), kinds(whole).slice(0, kinds(r).length));
  assert.ok(r.entries.filter((e) => e.type === 'tool_result').length >= 5);
});
