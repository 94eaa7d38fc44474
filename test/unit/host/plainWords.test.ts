// The barrier strip's line for a compaction that did not complete: what it means for the user, without trigger names or entry ids.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainOutcomeLine } from '../../../src/vscode/projection/plainWords.js';

const JARGON = /\b(auto_threshold|turn_complete|hard_limit|e_[a-z0-9]+|ck_[a-z0-9]+|cap_[a-z0-9]+)\b/;

test('a skipped soft compaction says what it means, not the gate it failed', () => {
  const line = plainOutcomeLine(
    'skipped',
    'Context compaction skipped (auto_threshold): only 812 tokens (12%) are reclaimable; auto_threshold needs at least 1950 and 25%',
  );
  assert.equal(line, 'Not compacted: too little of the chat is old enough to summarize yet, so nothing changed. It will compact later, when it frees more.');
});

test('every outcome other than completed reads without ids or trigger names', () => {
  const cases = [
    plainOutcomeLine('skipped', 'Context compaction skipped (user): entry e_mx56wwwo_12 is not on the active branch'),
    plainOutcomeLine(
      'skipped',
      'Context compaction skipped (user, level 1): the capsule (407 tokens) would not be smaller than the history it replaces (38 tokens)',
    ),
    plainOutcomeLine('failed', 'Context compaction failed (hard_limit, level 2): provider error at ck_abc1 while summarizing e_x1'),
    plainOutcomeLine('cancelled', 'Context compaction cancelled (turn_complete): nothing was appended'),
    plainOutcomeLine('stale', 'Context compaction discarded (auto_threshold): leaf moved from e_a to e_b'),
  ];
  for (const line of cases) assert.doesNotMatch(line, JARGON, line);
  assert.match(cases[0] ?? '', /not on the branch you are on/);
  assert.match(cases[2] ?? '', /^Compaction failed: .*The chat is as it was\.$/);
});
