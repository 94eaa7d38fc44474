// A command the user denied is recorded as denied, never as failed: in the ledger, the sections built from it, the fallback capsule and Project Memory.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderCapsule, sectionsFromLedger } from '../../../src/engine/compaction/capsuleFormat.js';
import { buildFallbackCapsule } from '../../../src/engine/compaction/fallback.js';
import { buildLedger } from '../../../src/engine/compaction/ledger.js';
import { renderLedger } from '../../../src/engine/compaction/ledgerFormat.js';
import { effects } from '../../../src/engine/transcript/effects.js';
import type { CapsuleEntry, Entry } from '../../../src/engine/transcript/schema.js';
import { ProjectMemory } from '../../../src/node/projectMemory.js';
import { tempDir } from '../../support/tempDir.js';

const T = '2026-12-01T10:00:00.000Z';
const DENIED = 'rm -rf build';

function span(): Entry[] {
  return [
    { type: 'user', id: 'u1', parentId: null, timestamp: T, content: 'Clean the build and run the tests' },
    {
      type: 'assistant',
      id: 'a1',
      parentId: 'u1',
      timestamp: T,
      content: 'Cleaning.',
      model: 'm',
      toolCalls: [{ id: 'c1', name: 'run_command', arguments: JSON.stringify({ command: DENIED }) }],
    },
    {
      type: 'tool_result',
      id: 'r1',
      parentId: 'a1',
      timestamp: T,
      toolCallId: 'c1',
      toolName: 'run_command',
      isError: true,
      content: 'The user declined to run this command; it was not run. Do not retry it; ask the user how to proceed.',
      effects: effects({ source: 'measured', denied: true, failed: true, exitCode: null }),
    },
    {
      type: 'assistant',
      id: 'a2',
      parentId: 'r1',
      timestamp: T,
      content: 'Running the tests.',
      model: 'm',
      toolCalls: [{ id: 'c2', name: 'run_command', arguments: JSON.stringify({ command: 'npm run lint' }) }],
    },
    {
      type: 'tool_result',
      id: 'r2',
      parentId: 'a2',
      timestamp: T,
      toolCallId: 'c2',
      toolName: 'run_command',
      isError: false,
      content: 'exit code 2',
      effects: effects({ source: 'measured', failed: true, exitCode: 2 }),
    },
  ];
}

test('the ledger and the sections built from it say "denied" for the declined command and "Failed" only for the one that ran and failed', () => {
  const ledger = buildLedger(span());
  assert.match(renderLedger(ledger), new RegExp(`\`${DENIED}\` → denied`));
  const critical = sectionsFromLedger(ledger)['Critical Context'];
  assert.match(critical, new RegExp(`Denied by the user \\(not run\\): \`${DENIED}\``));
  assert.doesNotMatch(critical, new RegExp(`Failed: \`${DENIED}\``));
  assert.match(critical, /Failed: `npm run lint` \(exit 2\)/);
});

test('the fallback capsule lists the declined command as denied, not as a tool error or a failure', () => {
  const entries = span();
  const fb = buildFallbackCapsule({ span: entries, ledger: buildLedger(entries), reason: 'timeout' });
  assert.match(fb.text, new RegExp(`\`${DENIED}\` → denied`));
  assert.doesNotMatch(fb.text, /Tool errors \(latest last\)/);
  assert.doesNotMatch(fb.text, new RegExp(`Failed: \`${DENIED}\``));
});

test('Project Memory mirrored from such a capsule records the command as denied', async (t) => {
  const dir = await tempDir(t, 'capsule-denied-');
  const entries = span();
  const ledger = buildLedger(entries);
  const capsule: CapsuleEntry = {
    type: 'capsule',
    id: 'cap1',
    parentId: 'r2',
    timestamp: T,
    summary: renderCapsule({ sections: sectionsFromLedger(ledger), ledger, quality: 'full' }),
    firstKeptEntryId: null,
    pinnedEntryIds: [],
    tokensBefore: 5000,
    tokensAfter: 800,
    trigger: 'user',
    level: 0,
    quality: 'full',
    truncateResults: false,
    checkpointId: 'ck_1',
    details: {},
  };
  const memory = new ProjectMemory(dir);
  assert.equal(await memory.mirror(capsule, { validated: true, sessionId: 's_1' }), true);
  const text = readFileSync(join(dir, 'project-memory.capsule.md'), 'utf8');
  assert.match(text, new RegExp(`\`${DENIED}\` → denied`));
  assert.match(text, /Denied by the user \(not run\)/);
  assert.doesNotMatch(text, new RegExp(`Failed: \`${DENIED}\``));
});
