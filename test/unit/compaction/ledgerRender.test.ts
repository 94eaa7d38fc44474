// The rendered ledger: newest first with counts of what was cut, renames as renames, deletions, paths relative to the root, inferred marks; repeated compaction repeats no heading.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFallbackCapsule } from '../../../src/engine/compaction/fallback.js';
import { buildLedger, type Ledger } from '../../../src/engine/compaction/ledger.js';
import { MAX_RENDERED_FILES, renderLedger } from '../../../src/engine/compaction/ledgerFormat.js';
import { effects } from '../../../src/engine/transcript/effects.js';
import type { CapsuleEntry, Entry } from '../../../src/engine/transcript/schema.js';
import { SessionBuilder } from './sessionBuilder.js';

function withEffects(entries: readonly Entry[], byCommand: Readonly<Record<string, Parameters<typeof effects>[0]>>): Entry[] {
  const commandOf = new Map<string, string>();
  for (const e of entries)
    if (e.type === 'assistant') for (const c of e.toolCalls) commandOf.set(c.id, (JSON.parse(c.arguments) as { command?: string }).command ?? '');
  return entries.map((e) => {
    const spec = e.type === 'tool_result' ? byCommand[commandOf.get(e.toolCallId) ?? ''] : undefined;
    return e.type === 'tool_result' && spec ? { ...e, effects: effects(spec) } : e;
  });
}

test('measured effects: creations, renames, deletions and lockfiles from npm install all reach the ledger', () => {
  const b = new SessionBuilder();
  b.user('Set up the project');
  b.assistant('', 10, [
    { name: 'run_command', args: { command: 'npm install left-pad' }, result: 'added 1 package\nexit code 0' },
    { name: 'run_command', args: { command: 'mv src/old.ts src/new.ts' }, result: '(no output)\nexit code 0' },
    { name: 'run_command', args: { command: 'rm notes.txt' }, result: '(no output)\nexit code 0' },
    { name: 'run_command', args: { command: 'npx codegen' }, result: '(no output)\nexit code 0' },
  ]);
  const entries = withEffects(b.entries, {
    'npm install left-pad': { source: 'measured', modified: ['package.json', 'package-lock.json'], exitCode: 0, failed: false },
    'mv src/old.ts src/new.ts': { source: 'measured', renamed: [{ from: 'src/old.ts', to: 'src/new.ts' }], exitCode: 0, failed: false },
    'rm notes.txt': { source: 'measured', deleted: ['notes.txt'], exitCode: 0, failed: false },
    'npx codegen': { source: 'measured', created: ['src/gen/api.ts'], exitCode: 0, failed: false },
  });
  const l = buildLedger(entries);
  assert.deepEqual(l.filesModified, ['package.json', 'package-lock.json', 'src/new.ts', 'src/gen/api.ts']);
  assert.deepEqual(l.filesCreated, ['src/gen/api.ts']);
  assert.deepEqual(l.renamed, [{ from: 'src/old.ts', to: 'src/new.ts' }]);
  assert.deepEqual(l.filesDeleted, ['notes.txt']);
  assert.deepEqual(l.inferredFiles, []);
  const text = renderLedger(l);
  assert.match(text, /\*\*Files renamed \(1, newest first\):\*\*\n- `src\/old.ts` → `src\/new.ts`/);
  assert.match(text, /\*\*Files deleted \(1, newest first\):\*\*\n- `notes.txt`/);
  assert.match(text, /- `src\/gen\/api.ts` \(new\)\n- `src\/new.ts`/);
  assert.doesNotMatch(text, /inferred/);
});

test('absolute paths inside the workspace are made relative; shell-inferred files are marked and the capsule says so', () => {
  const b = new SessionBuilder();
  b.user('Fix the migration');
  b.assistant('', 10, [
    { name: 'bash', args: { command: "sed -i 's/a/b/' /testbed/django/db/migrations/autodetector.py" }, result: '' },
    { name: 'bash', args: { command: 'cat /testbed/setup.py' }, result: 'setup()' },
    { name: 'bash', args: { command: 'sed -i s/x/y/ /testbed/missing.py' }, result: "sed: can't read /testbed/missing.py: No such file\nExit code: 2" },
  ]);
  const l = buildLedger(b.entries, undefined, { root: '/testbed' });
  assert.deepEqual(l.filesModified, ['django/db/migrations/autodetector.py'], 'a failed command changed nothing');
  assert.deepEqual(l.filesRead, ['setup.py']);
  assert.deepEqual(l.inferredFiles, ['django/db/migrations/autodetector.py', 'setup.py']);
  const text = renderLedger(l);
  assert.match(text, /`django\/db\/migrations\/autodetector.py` \(inferred\)/);
  assert.match(text, /were read from command text/);
  assert.match(text, /`sed -i s\/x\/y\/ \/testbed\/missing.py` → exit 2 \(status inferred\)/);
});

test('long lists keep the most recent items and count the older ones', () => {
  const files = Array.from({ length: MAX_RENDERED_FILES + 5 }, (_, i) => `f${i}.ts`);
  const ledger: Ledger = { ...buildLedger([]), filesModified: files };
  const text = renderLedger(ledger);
  assert.ok(text.includes(`- \`f${MAX_RENDERED_FILES + 4}.ts\``), 'the newest file is shown');
  assert.ok(!text.includes('- `f0.ts`'), 'the oldest is cut');
  assert.match(text, /- \.\.\. and 5 older not shown/);
});

test('repeated fallback compaction repeats no heading and no boilerplate', () => {
  let prev: CapsuleEntry | undefined;
  let ledger: Ledger | undefined;
  for (let round = 0; round < 4; round++) {
    const b = new SessionBuilder();
    b.user(`task ${round}`);
    b.assistant('work', 10, [{ name: 'run_command', args: { command: `sed -i s/a/b/ f${round}.py` }, result: 'exit code 0' }]);
    ledger = buildLedger(b.entries, ledger);
    const fb = buildFallbackCapsule({ span: b.entries, ...(prev ? { previousCapsule: prev } : {}), ledger, reason: 'timeout' });
    prev = {
      type: 'capsule',
      id: `c${round}`,
      parentId: null,
      timestamp: 't',
      summary: fb.text,
      firstKeptEntryId: null,
      pinnedEntryIds: [],
      tokensBefore: 1,
      tokensAfter: 1,
      trigger: 'user',
      level: 0,
      quality: 'degraded',
      truncateResults: false,
      checkpointId: 'ck_1',
      details: {},
    };
  }
  const text = prev?.summary ?? '';
  const headings = text
    .split('\n')
    .filter((l) => /^#{1,6} /.test(l))
    .map((l) => l.replace(/^#+ /, ''));
  assert.deepEqual(
    headings.filter((h, i) => headings.indexOf(h) !== i),
    [],
    'no heading twice',
  );
  for (let round = 0; round < 4; round++) assert.ok(text.includes(`f${round}.py`), `round ${round}'s file survives`);
  assert.equal(text.split('None recorded for the summarized span').length, 2, 'the boilerplate line appears once');
});
