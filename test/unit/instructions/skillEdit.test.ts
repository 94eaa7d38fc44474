// An active skill whose SKILL.md is edited: one system update with the new body (the cached prefix kept), none for a turn without an edit, and after a compaction the base carries the new body, not the old.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentRequests, agentResponder, SMALL_SETTINGS, tempDir } from '../agent/agentHelpers.js';
import { bodyOf, messageTexts, openWithInstructions, systemText, workspaceWith } from './instructionHelpers.js';

const HEAD = '---\nname: release-notes\ndescription: Write release notes from the git log.\n---\n';

test('editing an active skill sends its new body in one update; an inactive skill edit sends nothing; after a compaction only the new body is there', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 16_000 });
  t.after(() => server.close());
  server.setFallback(
    agentResponder((text) => {
      if (text.startsWith('Use the skill')) return [{ name: 'skill', arguments: { name: 'release-notes' } }];
      const m = /^Read (f\d+)/.exec(text);
      return m === null ? [] : [{ name: 'read_file', arguments: { path: `src/${m[1] ?? ''}.ts` } }];
    }),
  );
  const skillPath = '.claude/skills/release-notes/SKILL.md';
  const otherPath = '.claude/skills/other/SKILL.md';
  const ws = await workspaceWith(
    dir,
    { [skillPath]: `${HEAD}OLD-BODY-17: newest first.\n`, [otherPath]: '---\nname: other\ndescription: Unused.\n---\nOTHER-1\n' },
    4,
    60,
  );
  const { session } = await openWithInstructions(server, dir, ws, { window: 16_000, maxOutput: 1000, settings: { ...SMALL_SETTINGS, keepRecentTokens: 600 } });
  t.after(() => session.close());
  const signal = new AbortController().signal;
  const updates = (): number =>
    session.store.tree.branch().filter((e) => e.type === 'system_update' && e.mode === 'append' && e.reason === 'instructions update').length;

  await session.turn({ userText: 'Use the skill for release notes.', signal });
  await writeFile(join(ws, otherPath), '---\nname: other\ndescription: Unused.\n---\nOTHER-2\n');
  await session.turn({ userText: 'Read f0 please.', signal });
  assert.equal(updates(), 0, 'a skill that was never loaded is not sent when its body changes');

  await writeFile(join(ws, skillPath), `${HEAD}NEW-BODY-42: oldest first, grouped by author.\n`);
  const before = agentRequests(server).length;
  await session.turn({ userText: 'Read f1 please.', signal });
  assert.equal(updates(), 1, 'one update for the edit');
  const [prev, next] = [agentRequests(server)[before - 1], agentRequests(server)[before]];
  assert.ok(prev !== undefined && next !== undefined);
  assert.deepEqual(bodyOf(next).messages.slice(0, bodyOf(prev).messages.length), bodyOf(prev).messages, 'the earlier request stays the prefix');
  const update = messageTexts(next).find((m) => m.includes('# Instruction update'));
  assert.ok(
    update?.includes(
      '## Skill release-notes (.claude/skills/release-notes/SKILL.md), edited since it was loaded; follow this text\nNEW-BODY-42: oldest first, grouped by author.',
    ),
    update,
  );
  await session.turn({ userText: 'Read f2 please.', signal });
  assert.equal(updates(), 1, 'no edit, no further update');

  await session.compact();
  await session.turn({ userText: 'Read f3 please.', signal });
  const last = agentRequests(server).pop();
  assert.ok(last !== undefined);
  const all = messageTexts(last).join('\n');
  assert.ok(systemText(last).includes('NEW-BODY-42'), 'the new epoch base carries the new body');
  assert.equal(all.split('NEW-BODY-42').length - 1, 1, 'once');
  assert.ok(!all.includes('OLD-BODY-17'), 'the old body is gone with the summarized load');
});
