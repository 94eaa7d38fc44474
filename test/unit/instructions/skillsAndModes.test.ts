// Skills: a skill loaded in turn 2 stays in force after two compactions and is in the ledger; Ask mode refuses writes in the tool layer and a switch is one system update.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentRequests, agentResponder, compactionEnds, SMALL_SETTINGS, tempDir } from '../agent/agentHelpers.js';
import { bodyOf, messageTexts, openWithInstructions, systemText, workspaceWith } from './instructionHelpers.js';

const SKILL =
  '---\nname: release-notes\ndescription: Write release notes from the git log. Use when asked for release notes.\n---\n# Release notes\nSKILL-BODY-91: group changes by feature, newest first.\n';

test('a skill loaded in turn 2 is in force after two compactions: its body is back in the request and the ledger lists it', async (t) => {
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
  const ws = await workspaceWith(dir, { '.claude/skills/release-notes/SKILL.md': SKILL, '.claude/skills/release-notes/template.md': 'T' }, 4, 60);
  const { session, events } = await openWithInstructions(server, dir, ws, {
    window: 16_000,
    maxOutput: 1000,
    settings: { ...SMALL_SETTINGS, keepRecentTokens: 600 },
  });
  t.after(() => session.close());
  const signal = new AbortController().signal;
  await session.turn({ userText: 'Read f0 please.', signal });
  const first = agentRequests(server)[0];
  assert.ok(first !== undefined && systemText(first).includes('- release-notes: Write release notes from the git log.'), 'the index is in the prompt');
  assert.ok(!systemText(first).includes('SKILL-BODY-91'), 'the body is not, until loaded');
  assert.ok(
    (bodyOf(first).tools ?? []).some((x) => JSON.stringify(x).includes('"name":"skill"')),
    'the skill tool is offered',
  );
  await session.turn({ userText: 'Use the skill for release notes.', signal });
  const loaded = session.store.tree.branch().filter((e) => e.type === 'tool_result' && e.toolName === 'skill');
  assert.equal(loaded.length, 1);
  assert.match(loaded[0]?.type === 'tool_result' ? loaded[0].content : '', /SKILL-BODY-91[\s\S]*Other files of this skill.*template\.md/);
  const done = (): number => compactionEnds(events).filter((e) => e.outcome === 'completed').length;
  for (let round = 0; round < 6 && done() < 2; round++) {
    for (const f of ['f1', 'f2', 'f3']) await session.turn({ userText: `Read ${f} (round ${round}).`, signal });
    await session.compact();
  }
  assert.ok(done() >= 2, `compactions: ${done()}`);
  await session.turn({ userText: 'Read f0 again.', signal });
  const last = agentRequests(server).pop();
  assert.ok(last !== undefined);
  const texts = messageTexts(last);
  assert.ok(!texts.slice(1).some((m) => m.startsWith('Skill "release-notes"')), 'the load itself was summarized away');
  assert.ok(
    systemText(last).includes('# Active skills') &&
      systemText(last).includes('## Skill: release-notes\nSkill "release-notes"') &&
      systemText(last).includes('SKILL-BODY-91'),
    'the body is back in the base',
  );
  const capsule = texts.find((m) => m.includes('**Active skills:**'));
  assert.ok(capsule?.includes('**Active skills:** `release-notes`'), 'the ledger lists the active skill exactly');
  assert.ok(capsule?.includes('**Mode:** Agent'), 'the capsule records the mode in force');
});

test('Ask mode refuses a write in the tool layer (the file is not written, approval is never asked); switching back is one system update', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 32_000 });
  t.after(() => server.close());
  server.setFallback(
    agentResponder((text) =>
      text.startsWith('Write')
        ? [
            { name: 'write_file', arguments: { path: 'out.txt', content: 'x' } },
            { name: 'run_command', arguments: { command: 'touch ran.txt' } },
          ]
        : [],
    ),
  );
  const ws = await workspaceWith(dir, {});
  let approvals = 0;
  const { session } = await openWithInstructions(server, dir, ws, {
    workspace: { roots: [ws], approve: async () => (approvals++, true), trusted: () => true },
    instr: { userDir: null, mode: 'ask' },
  });
  t.after(() => session.close());
  const signal = new AbortController().signal;
  await session.turn({ userText: 'Write out.txt please.', signal });
  const results = session.store.tree.branch().filter((e) => e.type === 'tool_result');
  assert.equal(results.length, 2);
  for (const r of results) assert.ok(r.type === 'tool_result' && r.isError && /Refused: the chat is in Ask mode/.test(r.content));
  assert.equal(existsSync(join(ws, 'out.txt')), false);
  assert.equal(existsSync(join(ws, 'ran.txt')), false);
  assert.equal(approvals, 0);
  const firstRequest = agentRequests(server)[0];
  assert.ok(firstRequest !== undefined && systemText(firstRequest).includes('## Mode: Ask'));

  const instr = session.instructions;
  assert.ok(instr !== undefined);
  instr.setMode('agent');
  await session.agent.syncInstructions();
  const updates = session.store.tree.branch().filter((e) => e.type === 'system_update' && e.reason === 'instructions update');
  assert.equal(updates.length, 1);
  assert.match(updates[0]?.type === 'system_update' ? updates[0].content : '', /## Mode: Agent\nThe chat is back in Agent mode/);
  await session.turn({ userText: 'Write out.txt please.', signal });
  assert.equal(existsSync(join(ws, 'out.txt')), true, 'in Agent mode the write goes through');
  const sys = agentRequests(server).map(systemText);
  assert.equal(new Set(sys).size, 1, 'the switch never rewrote the system prompt');
});
