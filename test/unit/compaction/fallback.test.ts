// The deterministic fallback capsule (docs/behaviour.md#capsule): complete, degraded, names every change and command, byte-stable, bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CAPSULE_MAX_TOKENS, SECTION_NAMES, parseCapsuleSections } from '../../../src/engine/compaction/capsuleFormat.js';
import { buildFallbackCapsule } from '../../../src/engine/compaction/fallback.js';
import { LEDGER_DETAILS_KEY, buildLedger, ledgerFromDetails } from '../../../src/engine/compaction/ledger.js';
import { SessionBuilder, pbtSeed } from './sessionBuilder.js';

const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/);
const pathArb = fc
  .tuple(fc.array(word, { minLength: 0, maxLength: 3 }), word, fc.constantFrom('ts', 'py', 'md', 'json'))
  .map(([dirs, f, ext]) => [...dirs, `${f}.${ext}`].join('/'));
const commandArb = fc
  .tuple(fc.constantFrom('npm test', 'git status', 'ls', 'pytest -q', 'echo', 'make'), fc.array(word, { maxLength: 3 }))
  .map(([c, a]) => [c, ...a].join(' '));

type Action =
  | { readonly k: 'write' | 'edit' | 'read'; readonly path: string; readonly fails: boolean }
  | { readonly k: 'patch'; readonly paths: readonly string[] }
  | { readonly k: 'run'; readonly command: string; readonly code: number };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ k: fc.constantFrom('write' as const, 'edit' as const, 'read' as const), path: pathArb, fails: fc.boolean() }),
  fc.record({ k: fc.constant('patch' as const), paths: fc.array(pathArb, { minLength: 1, maxLength: 3 }) }),
  fc.record({ k: fc.constant('run' as const), command: commandArb, code: fc.integer({ min: 0, max: 3 }) }),
);

function sessionOf(turns: readonly (readonly Action[])[]): SessionBuilder {
  const b = new SessionBuilder();
  turns.forEach((actions, i) => {
    b.user(`request ${i}`);
    b.assistant(
      `working on ${i}`,
      10,
      actions.map((a) => {
        switch (a.k) {
          case 'write':
          case 'edit':
          case 'read':
            return { name: `${a.k}_file`, args: { path: a.path }, result: a.fails ? 'error' : 'ok', isError: a.fails };
          case 'patch':
            return { name: 'apply_patch', args: { input: a.paths.map((p) => `*** Update File: ${p}`).join('\n') }, result: 'ok' };
          case 'run':
            return { name: 'run_command', args: { command: a.command }, result: `out\nexit code ${a.code}`, isError: a.code !== 0 };
        }
      }),
    );
  });
  return b;
}

test('property: the fallback names every modified file and every command of the span, and is byte-identical on rebuild', () => {
  const seed = pbtSeed('fallback');
  fc.assert(
    fc.property(fc.array(fc.array(actionArb, { maxLength: 4 }), { minLength: 1, maxLength: 6 }), (turns) => {
      const b = sessionOf(turns);
      const ledger = buildLedger(b.entries);
      const input = { span: b.entries, ledger, reason: 'timeout after 15000 ms' };
      const fb = buildFallbackCapsule(input);
      for (const t of turns) {
        for (const a of t) {
          if (a.k === 'write' || a.k === 'edit') assert.ok(fb.text.includes(`\`${a.path}\``), `modified file ${a.path} missing`);
          if (a.k === 'patch') for (const p of a.paths) assert.ok(fb.text.includes(`\`${p}\``), `patched file ${p} missing`);
          if (a.k === 'run') assert.ok(fb.text.includes(`\`${a.command}\``), `command ${a.command} missing`);
        }
      }
      assert.deepEqual(parseCapsuleSections(fb.text).missing, []);
      assert.equal(fb.content.quality, 'degraded');
      assert.equal(buildFallbackCapsule(input).text, fb.text);
    }),
    { seed, numRuns: 1000 },
  );
});

test('the fallback rolls in the previous capsule and says it is degraded', () => {
  const first = new SessionBuilder();
  first.user('Port the parser to Rust.');
  first.assistant('', 10, [{ name: 'write_file', args: { path: 'src/parser.rs' }, result: 'ok' }]);
  const prevLedger = buildLedger(first.entries);
  const b = new SessionBuilder();
  const prev = b.capsule({
    firstKeptEntryId: null,
    summary: '## Goal\nPort the parser to Rust.\n\n## Key Decisions\n- Use nom: fastest to write.\n\n## Next Steps\n- Benchmark it.',
    details: { [LEDGER_DETAILS_KEY]: prevLedger },
  });
  b.user('Now add error recovery.');
  b.assistant('', 10, [{ name: 'run_command', args: { command: 'cargo test' }, result: 'test result: FAILED\nexit code 101', isError: true }]);
  const span = b.entries.filter((e) => e.type !== 'capsule');
  const ledger = buildLedger(span, ledgerFromDetails(prev.details));
  const fb = buildFallbackCapsule({ span, previousCapsule: prev, ledger, reason: 'provider error 500' });
  const s = parseCapsuleSections(fb.text).sections;
  assert.match(fb.text, /^> Degraded capsule: .*provider error 500/);
  assert.equal(s.Goal, 'Port the parser to Rust.');
  assert.match(s['Key Decisions'] ?? '', /Use nom: fastest to write\./);
  assert.match(s['Next Steps'] ?? '', /Benchmark it\./);
  assert.match(s['Critical Context'] ?? '', /provider error 500/);
  assert.match(s['Critical Context'] ?? '', /test result: FAILED/);
  assert.match(s['Relevant Files'] ?? '', /`src\/parser\.rs` \(modified\)/);
  assert.match(fb.text, /\*\*Last verification:\*\* `cargo test` → failed \(exit 101\)/);
});

test('a huge span gives a bounded fallback that counts what it left out', () => {
  const b = new SessionBuilder();
  b.user('x'.repeat(50_000));
  for (let i = 0; i < 400; i++) {
    b.assistant('y'.repeat(2000), 10, [
      { name: 'edit_file', args: { path: `src/deep/folder/structure/file_number_${i}.ts` }, result: 'ok' },
      {
        name: 'run_command',
        args: { command: `node scripts/do-something-long.mjs --iteration ${i} ${'--flag '.repeat(20)}` },
        result: 'boom '.repeat(500),
        isError: true,
      },
    ]);
  }
  const fb = buildFallbackCapsule({ span: b.entries, ledger: buildLedger(b.entries), reason: 'timeout' });
  // About four characters a token: the whole capsule stays within the 10k-token capsule bound.
  assert.ok(fb.text.length < CAPSULE_MAX_TOKENS * 4, `fallback is ${fb.text.length} chars`);
  assert.match(fb.text, /\.\.\. and \d+ more/);
  assert.match(fb.text, /\.\.\. \d+ earlier commands not shown/);
  for (const n of SECTION_NAMES) assert.ok(!parseCapsuleSections(fb.text).missing.includes(n));
});
