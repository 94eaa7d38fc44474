// Capsule sections (docs/behaviour.md#capsule): render/parse round trip, tolerant parsing, filling from the ledger, invented paths, validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  CAPSULE_MAX_TOKENS,
  CAPSULE_MIN_TOKENS,
  type CapsuleContent,
  SECTION_NAMES,
  type SectionName,
  completeFromLedger,
  flagInventedPaths,
  normalizeBody,
  parseCapsuleSections,
  renderCapsule,
  validateCapsule,
} from '../../../src/engine/compaction/capsuleFormat.js';
import { assembleCapsule, FILLED_MARK, transcriptTextOf } from '../../../src/engine/compaction/capsuleAssembly.js';
import { GOOD_SUMMARY } from './harness.js';
import { EMPTY_LEDGER, type Ledger } from '../../../src/engine/compaction/ledger.js';
import { SessionBuilder, pbtSeed } from './sessionBuilder.js';

// Lines a body might contain that look like headings of the capsule, escaped or not.
const tricky = fc.constantFrom(
  '## Goal',
  '\\## Goal',
  '\\\\## Next Steps',
  '**Progress**',
  '__Key Decisions:__',
  'Next Steps:',
  'Relevant Files:',
  '## Ledger',
  '# 1. Critical Context',
  '  ### Constraints and Preferences',
  '### Done',
  '> ## Goal',
  '- **Goal**',
  '\\',
  '\\x',
  'line\r',
  '',
  '   ',
  '```',
  '## Notes',
  'Goal: ship it',
  '**Goal:** ship it',
  '__Next Steps__: run',
  '**Note:** x',
);
const bodyArb = fc
  .array(fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 30 }) }, { weight: 2, arbitrary: tricky }), { maxLength: 8 })
  .map((ls) => ls.join('\n'));
const ledgerArb: fc.Arbitrary<Ledger> = fc
  .record({
    originalTask: fc.option(bodyArb, { nil: null }),
    latestRequest: fc.option(bodyArb, { nil: null }),
    filesRead: fc.array(fc.oneof(fc.string({ maxLength: 20 }), tricky), { maxLength: 4 }),
    filesModified: fc.array(fc.oneof(fc.string({ maxLength: 20 }), tricky), { maxLength: 4 }),
    commands: fc.array(
      fc.record({
        callId: fc.string(),
        command: fc.oneof(bodyArb, tricky),
        exitCode: fc.option(fc.integer({ min: -1, max: 255 }), { nil: null }),
        ok: fc.option(fc.boolean(), { nil: null }),
      }),
      { maxLength: 4 },
    ),
    commandsOmitted: fc.nat({ max: 5 }),
    lastVerification: fc.option(fc.record({ callId: fc.string(), command: tricky, exitCode: fc.option(fc.integer(), { nil: null }), passed: fc.boolean() }), {
      nil: null,
    }),
    activeSkills: fc.array(fc.oneof(fc.string({ maxLength: 10 }), tricky), { maxLength: 3 }),
    plan: fc.option(
      fc.array(
        fc.record({
          step: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), tricky),
          status: fc.constantFrom('pending' as const, 'in_progress' as const, 'done' as const),
        }),
        { maxLength: 3 },
      ),
      { nil: null },
    ),
  })
  .map((l) => ({ ...EMPTY_LEDGER, ...l }));
const contentArb: fc.Arbitrary<CapsuleContent> = fc.record({
  sections: fc.record(Object.fromEntries(SECTION_NAMES.map((n) => [n, bodyArb])) as Record<SectionName, fc.Arbitrary<string>>),
  ledger: ledgerArb,
  quality: fc.constantFrom('full' as const, 'degraded' as const),
  degradedReason: fc.oneof(bodyArb, tricky),
  flaggedPaths: fc.array(fc.oneof(fc.string({ maxLength: 12 }), tricky), { maxLength: 3 }),
});

test('property: render then parse gives back every section exactly (in canonical form)', () => {
  const seed = pbtSeed('capsule round trip');
  fc.assert(
    fc.property(contentArb, (c) => {
      const text = renderCapsule(c);
      const parsed = parseCapsuleSections(text);
      for (const name of SECTION_NAMES) {
        const canonical = normalizeBody(c.sections[name]);
        assert.equal(parsed.sections[name], canonical, name);
        assert.equal(parsed.missing.includes(name), canonical === '');
      }
      // Canonical bodies round-trip byte for byte, and rendering is a fixpoint.
      const again = renderCapsule({ ...c, sections: parsed.sections as Record<SectionName, string> });
      assert.equal(again, text);
    }),
    { seed, numRuns: 1000 },
  );
});

test('parsing tolerates the headings models actually write', () => {
  const answer = [
    '# Context Capsule',
    '',
    '### 1. GOAL',
    'Ship login.',
    '**Constraints and Preferences:** No new deps.',
    '## 3) Progress (Done / In progress / Blocked)',
    '### Done',
    '- wrote src/login.ts',
    '## **Key Decisions**',
    'Use sessions: simpler.',
    'Next Steps:',
    '1. Run tests',
    '## Critical Context ##',
    'Error: 1 failing',
    '## Relevant files',
    '- src/login.ts',
    '## Ledger',
    '- made-up ledger the model should not write',
  ].join('\n');
  const p = parseCapsuleSections(answer);
  assert.deepEqual(p.missing, []);
  assert.equal(p.preamble, '# Context Capsule');
  assert.equal(p.sections.Goal, 'Ship login.');
  assert.equal(p.sections['Constraints & Preferences'], 'No new deps.');
  assert.equal(p.sections.Progress, '### Done\n- wrote src/login.ts');
  assert.equal(p.sections['Next Steps'], '1. Run tests');
  assert.equal(p.sections['Relevant Files'], '- src/login.ts');
});

const LEDGER: Ledger = {
  ...EMPTY_LEDGER,
  originalTask: 'Build a login page for the app.',
  latestRequest: 'Now fix the failing test.',
  filesRead: ['src/app.ts', 'README.md'],
  filesModified: ['src/login.ts'],
  commands: [{ callId: 'c1', command: 'npm test', exitCode: 1, ok: false }],
  lastVerification: { callId: 'c1', command: 'npm test', exitCode: 1, passed: false },
};

test('a model answer missing sections gets them filled from the ledger', () => {
  const p = parseCapsuleSections('## Goal\nShip the login page.\n\n## Key Decisions\nSessions over JWT: simpler to revoke.');
  assert.deepEqual(p.missing, ['Constraints & Preferences', 'Progress', 'Next Steps', 'Critical Context', 'Relevant Files']);
  const { sections, filled } = completeFromLedger(p.sections, LEDGER);
  assert.deepEqual(filled, p.missing);
  assert.equal(sections.Goal, 'Ship the login page.');
  assert.match(sections['Relevant Files'], /`src\/login\.ts` \(modified\)/);
  assert.match(sections['Relevant Files'], /`src\/app\.ts` \(read\)/);
  assert.match(sections['Next Steps'], /latest user request/);
  assert.match(sections['Critical Context'], /`npm test` failed/);
  const text = renderCapsule({ sections, ledger: LEDGER, quality: 'full' });
  assert.deepEqual(parseCapsuleSections(text).missing, []);
  assert.match(text, /## Ledger[\s\S]*> Build a login page for the app\.[\s\S]*> Now fix the failing test\.[\s\S]*`npm test` → exit 1/);
  // With no model sections at all, the ledger alone still gives a complete capsule.
  const empty = completeFromLedger({}, EMPTY_LEDGER);
  assert.equal(empty.filled.length, 7);
  for (const n of SECTION_NAMES) assert.notEqual(empty.sections[n], '');
});

test('file paths the model invented are flagged; paths from the ledger or the transcript are not', () => {
  const sections = {
    'Relevant Files': '- `src/login.ts` (new)\n- src/app.ts:42\n- `src/auth/session.ts` — invented\n- lib/util.py.',
    'Critical Context': 'See https://example.com/x.html and docs/guide.md; Node.js is fine; e.g. this.',
  };
  const flagged = flagInventedPaths(sections, LEDGER, 'user said: look at docs/guide.md first');
  assert.deepEqual(flagged, ['Node.js', 'lib/util.py', 'src/auth/session.ts']);
  const text = renderCapsule({ ...completeFromLedger(sections, LEDGER), ledger: LEDGER, quality: 'full', flaggedPaths: flagged });
  assert.match(text, /Unverified paths.*`src\/auth\/session\.ts`/);
});

test('validation: empty, missing sections, size bounds, and no reduction are rejected', () => {
  const good = renderCapsule({ ...completeFromLedger({}, LEDGER), ledger: LEDGER, quality: 'full' });
  assert.deepEqual(validateCapsule(good, { tokens: 500, beforeTokens: 20_000 }), { ok: true, problems: [] });
  assert.equal(validateCapsule('   ', { tokens: 0, beforeTokens: 100 }).ok, false);
  const partial = validateCapsule('## Goal\nx', { tokens: 500, beforeTokens: 20_000 });
  assert.equal(partial.ok, false);
  assert.match(partial.problems.join(), /missing sections: Constraints & Preferences/);
  assert.match(validateCapsule(good, { tokens: CAPSULE_MIN_TOKENS - 1, beforeTokens: 20_000 }).problems.join(), /too small/);
  assert.match(validateCapsule(good, { tokens: CAPSULE_MAX_TOKENS + 1, beforeTokens: 50_000 }).problems.join(), /too large/);
  assert.match(validateCapsule(good, { tokens: 900, beforeTokens: 900 }).problems.join(), /not smaller/);
});

test('assembling a model answer: sections filled, invented paths flagged, prose-only answers kept', () => {
  const b = new SessionBuilder();
  b.user('Build a login page for the app.');
  b.assistant('', 10, [{ name: 'write_file', args: { path: 'src/login.ts' }, result: 'ok' }]);
  const text = transcriptTextOf(b.entries);
  const a = assembleCapsule({ answer: '## Goal\nLogin page.\n## Relevant Files\n- src/login.ts\n- src/ghost.ts', ledger: LEDGER, transcriptText: text });
  assert.deepEqual(a.flaggedPaths, ['src/ghost.ts']);
  assert.equal(a.filled.length, 5);
  assert.deepEqual(a.fromModel, ['Goal', 'Relevant Files']);
  assert.equal(a.content.quality, 'partial', 'sections filled from the ledger make the capsule partial, not degraded');
  // Each filled section says so; the model's own sections carry no mark.
  const parsed = parseCapsuleSections(a.text).sections;
  assert.ok(parsed['Next Steps']?.startsWith(FILLED_MARK));
  assert.ok(!(parsed.Goal ?? '').includes(FILLED_MARK));
  assert.deepEqual(parseCapsuleSections(a.text).missing, []);
  assert.match(a.text, /Unverified paths.*`src\/ghost\.ts`/);
  const prose = assembleCapsule({ answer: 'We built the login page and tests pass.', ledger: LEDGER, transcriptText: text });
  assert.equal(prose.content.sections['Critical Context'], 'We built the login page and tests pass.');
  assert.equal(prose.filled.length, 6);
  const full = assembleCapsule({ answer: GOOD_SUMMARY, ledger: LEDGER, transcriptText: text });
  assert.equal(full.content.quality, 'full');
  assert.equal(full.filled.length, 0);
});

test('renamed headings a model commonly writes map to the template sections', () => {
  const answer = [
    '# Summary',
    '## 1. Primary Request and Intent',
    'ship the parser',
    '## Current State',
    'lexer done',
    '## Remaining Work',
    '- the grammar',
    '**Important Notes:** keep the API stable',
    '## Files and Code Sections',
    '- src/parse.ts',
    '## Technical Decisions',
    '- recursive descent',
    '## User Preferences',
    '- no new dependencies',
  ].join('\n');
  const { sections, missing } = parseCapsuleSections(answer);
  assert.deepEqual(missing, []);
  assert.equal(sections.Goal, 'ship the parser');
  assert.equal(sections.Progress, 'lexer done');
  assert.equal(sections['Next Steps'], '- the grammar');
  assert.equal(sections['Critical Context'], 'keep the API stable');
  assert.equal(sections['Relevant Files'], '- src/parse.ts');
  assert.equal(sections['Key Decisions'], '- recursive descent');
  assert.equal(sections['Constraints & Preferences'], '- no new dependencies');
  // The template's own Progress sub-headings stay inside Progress.
  assert.equal(parseCapsuleSections('## Progress\n### Done\n- a\n### In progress\n- b').sections.Progress, '### Done\n- a\n### In progress\n- b');
});
