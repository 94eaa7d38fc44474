// Rewind through the facade against the fake server: a chat edits files over two turns, rewinding to the first message brings the files and the message back; "Conversation only" tells the model what differs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFakeOpenAI, type ChatBody } from '../../fakes/openaiServer.js';
import { resolveSettings } from '../../../src/engine/config.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';
import { AgentSession } from '../../../src/node/agentSession.js';
import { session } from '../compaction/harness.js';
import { agentRequests, agentResponder, GOOD_SUMMARY, openSession, tempDir, verifyFile, writeSession } from '../agent/agentHelpers.js';
import { warmEncoding } from '../../../src/node/tokenCounter.js';

async function twoTurns(t: { after(fn: () => Promise<void>): void }) {
  const dir = await tempDir(t, 'capsule-rewind-');
  await writeFile(join(dir, 'a.ts'), 'export const a = 1;\n');
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.setFallback(
    agentResponder((text) =>
      text.startsWith('first')
        ? [
            { name: 'write_file', arguments: { path: 'a.ts', content: 'export const a = 2;\n' } },
            { name: 'write_file', arguments: { path: 'b.ts', content: 'export const b = 1;\n' } },
          ]
        : text.startsWith('second')
          ? [{ name: 'run_command', arguments: { command: 'echo "export const a = 3;" > a.ts && rm b.ts' } }]
          : [],
    ),
  );
  const opened = await openSession(server, dir, { window: 64_000, maxOutput: 4_000 });
  t.after(() => opened.session.close());
  const r1 = await opened.session.turn({ userText: 'first: change a and add b', signal: new AbortController().signal });
  assert.equal(r1.status, 'completed', r1.error);
  const r2 = await opened.session.turn({ userText: 'second: rewrite a, drop b', signal: new AbortController().signal });
  assert.equal(r2.status, 'completed', r2.error);
  assert.equal(await readFile(join(dir, 'a.ts'), 'utf8'), 'export const a = 3;\n');
  assert.equal(existsSync(join(dir, 'b.ts')), false);
  return { dir, server, ...opened };
}

test('each message has its checkpoint; rewinding to the first restores the conversation before it, the files, and returns its text', async (t) => {
  const { dir, session, path } = await twoTurns(t);
  const firstUser = session.store.tree.branch().find((e) => e.type === 'user');
  assert.ok(firstUser?.type === 'user');
  const parent = session.store.tree.get(firstUser.parentId ?? '');
  assert.ok(parent?.type === 'checkpoint' && parent.forEntryId === firstUser.id, 'the message sits under its own checkpoint');

  const preview = await session.previewRewind(firstUser.id);
  assert.ok(preview.ok);
  assert.deepEqual(
    preview.files.map((f) => [f.path.slice(dir.length + 1), f.action]),
    [['a.ts', 'restore']],
    'b.ts was created and removed later: as at that moment',
  );
  const r = await session.rewind(firstUser.id);
  assert.ok(r.ok, r.ok ? '' : r.error);
  assert.equal(r.point.message?.text, 'first: change a and add b');
  assert.equal(await readFile(join(dir, 'a.ts'), 'utf8'), 'export const a = 1;\n');
  assert.equal(existsSync(join(dir, 'b.ts')), false);
  assert.ok(!session.store.tree.branch().some((e) => e.type === 'user'), 'the conversation is back to before the first message');

  // Rewinding forward to the second message brings that moment's files back: nothing was lost.
  const second = session.store.entries().filter((e) => e.type === 'user')[1];
  assert.ok(second);
  const fwd = await session.rewind(second.id);
  assert.ok(fwd.ok);
  assert.equal(await readFile(join(dir, 'a.ts'), 'utf8'), 'export const a = 2;\n');
  assert.equal(await readFile(join(dir, 'b.ts'), 'utf8'), 'export const b = 1;\n');
  assert.equal((await verifyFile(path)).ok, true);
});

test('"Conversation only" leaves the files and the next request carries one system update naming them', async (t) => {
  const { dir, session, server } = await twoTurns(t);
  const second = session.store.tree.branch().filter((e) => e.type === 'user')[1];
  assert.ok(second);
  const r = await session.rewind(second.id, { mode: 'conversation' });
  assert.ok(r.ok && r.note !== undefined);
  assert.equal(await readFile(join(dir, 'a.ts'), 'utf8'), 'export const a = 3;\n', 'files untouched');
  const seen = agentRequests(server).length;
  const next = await session.turn({ userText: 'third: what is in a.ts?', signal: new AbortController().signal });
  assert.equal(next.status, 'completed', next.error);
  const body = agentRequests(server)[seen]?.body as ChatBody;
  const system = body.messages
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');
  assert.match(system, /conversation was rewound, but the workspace files were not/);
  assert.ok(system.includes(join(dir, 'a.ts')) && system.includes(join(dir, 'b.ts')), system);
  assert.equal((system.match(/conversation was rewound/g) ?? []).length, 1, 'one update');
});

test('"Files only" restores the files and leaves the conversation; a file edited outside is kept and named', async (t) => {
  const { dir, session } = await twoTurns(t);
  const first = session.store.tree.branch().find((e) => e.type === 'user');
  assert.ok(first);
  await writeFile(join(dir, 'a.ts'), 'the user edited this\n');
  const leaf = session.store.leafId();
  const preview = await session.previewRewind(first.id);
  assert.ok(preview.ok && preview.files.find((f) => f.path.endsWith('a.ts'))?.editedOutside === true);
  const r = await session.rewind(first.id, { mode: 'files' });
  assert.ok(r.ok && r.files !== undefined);
  assert.equal(session.store.leafId(), leaf, 'the conversation did not move');
  assert.match(r.files.skipped[0]?.reason ?? '', /edited outside Capsule/);
  assert.equal(await readFile(join(dir, 'a.ts'), 'utf8'), 'the user edited this\n', 'never overwritten silently');
});

test('rewinding while a turn runs is refused with a request to stop first', async (t) => {
  const dir = await tempDir(t, 'capsule-rewind-');
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.setFallback(() => ({ delayMs: 300, then: { text: GOOD_SUMMARY } }));
  const { session } = await openSession(server, dir);
  t.after(() => session.close());
  const ctrl = new AbortController();
  const running = session.turn({ userText: 'slow', signal: ctrl.signal });
  const r = await session.rewind('ck_any');
  assert.match(r.ok ? '' : r.error, /stop it first/);
  ctrl.abort();
  await running;
});

test('undo of a compaction whose history no longer fits is refused and says what to do; one that fits is undone and redone', async (t) => {
  // Exact counts from the start: the figures compared below are read across turns (docs/behaviour.md#cold-start).
  warmEncoding('o200k_base');
  const dir = await tempDir(t, 'capsule-rewind-');
  const path = join(dir, 's.jsonl');
  await writeSession(path, session(30, 100));
  const info = resolveModelInfo('gpt-4o', { override: { contextWindow: 20_000, maxOutputTokens: 2_000 } });
  const s = await AgentSession.openOffline({
    sessionPath: path,
    model: () => ({ model: info, provider: 'test', resolved: resolveSettings({ raw: {}, env: {}, model: info }) }),
  });
  t.after(() => s.close());
  const r = await s.compact();
  const done = [...r.outcomes].reverse().find((o) => o.outcome === 'completed');
  assert.ok(done?.outcome === 'completed');
  const before = s.store.entries().length;
  const u = await s.undoCompaction(done.checkpointId);
  assert.equal(u.ok, false);
  assert.match(u.ok ? '' : u.error, /above the hard limit .* nothing was changed\. Compact again with a focus/);
  assert.equal(s.store.entries().length, before);

  await s.close();
  const roomy = await AgentSession.openOffline({
    sessionPath: path,
    model: () => ({
      model: { ...info, contextWindow: 200_000 },
      provider: 'test',
      resolved: resolveSettings({ raw: {}, env: {}, model: { contextWindow: 200_000, maxOutputTokens: 2_000 } }),
    }),
  });
  t.after(() => roomy.close());
  const compactedTokens = roomy.budget().effectiveTokens;
  const ok = await roomy.undoCompaction(done.checkpointId);
  assert.ok(ok.ok, ok.ok ? '' : ok.error);
  assert.ok(roomy.budget().effectiveTokens > compactedTokens, 'the summarized history is back in the input');
  const redo = await roomy.undoCompaction(done.checkpointId, 'redo');
  assert.ok(redo.ok);
  assert.equal(roomy.budget().effectiveTokens, compactedTokens);
});

test('switching branches moves the conversation only: files stay, the model is told once which differ, and switching back and forth adds no more notes', async (t) => {
  const { dir, session, server } = await twoTurns(t);
  const second = session.store.tree.branch().filter((e) => e.type === 'user')[1];
  assert.ok(second);
  const back = await session.rewind(second.id);
  assert.ok(back.ok);
  assert.equal(await readFile(join(dir, 'a.ts'), 'utf8'), 'export const a = 2;\n', 'the files of the moment before the second message');
  const edited = await session.turn({ userText: 'again, without touching files', signal: new AbortController().signal });
  assert.equal(edited.status, 'completed', edited.error);
  const editedUser = session.store.tree.branch().filter((e) => e.type === 'user')[1];
  assert.ok(editedUser && editedUser.id !== second.id);

  const sw = await session.switchBranch(second.id);
  assert.ok(sw.ok, sw.ok ? '' : sw.error);
  assert.deepEqual(
    sw.differ?.map((f) => f.path.slice(dir.length + 1)).sort(),
    ['a.ts', 'b.ts'],
    'the second turn rewrote a.ts and removed b.ts; the rewind put them back',
  );
  assert.equal(await readFile(join(dir, 'a.ts'), 'utf8'), 'export const a = 2;\n', 'a switch never touches the files');
  assert.equal(session.store.tree.branch().at(-1)?.type, 'system_update');
  assert.ok(session.store.tree.branch().some((e) => e.id === second.id));

  for (const target of [editedUser.id, second.id, editedUser.id, second.id]) {
    const r = await session.switchBranch(target);
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.equal(r.note, undefined, 'nothing changed on disk since the last note');
  }
  const seen = agentRequests(server).length;
  const next = await session.turn({ userText: 'third: what is in a.ts?', signal: new AbortController().signal });
  assert.equal(next.status, 'completed', next.error);
  const system = (agentRequests(server)[seen]?.body as ChatBody).messages
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');
  assert.equal((system.match(/conversation was rewound/g) ?? []).length, 1, 'one update in the input of branch 1');
  const again = await session.switchBranch(second.id);
  assert.equal(again.ok, false, 'the branch shown is not switched to again');
});

test('"Always allow" writing the settings file during a command is not an agent effect: the rewind neither lists nor deletes it', async (t) => {
  const dir = await tempDir(t, 'capsule-rewind-');
  const settings = join(dir, '.vscode', 'settings.json');
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.setFallback(agentResponder((text) => (text.startsWith('build') ? [{ name: 'run_command', arguments: { command: 'echo built > out.txt' } }] : [])));
  const { session } = await openSession(server, dir, {
    window: 64_000,
    maxOutput: 4_000,
    ownFiles: [settings],
    workspace: {
      roots: [dir],
      trusted: () => true,
      // What the approval card's "Always allow" does: the rule lands in the workspace settings, then the command runs.
      approve: async (req) => {
        if (req.kind === 'command') {
          await mkdir(join(dir, '.vscode'), { recursive: true });
          await writeFile(settings, '{ "capsule.approvals.allowedCommands": ["echo"] }\n');
        }
        return true;
      },
    },
  });
  t.after(() => session.close());
  const r1 = await session.turn({ userText: 'build it', signal: new AbortController().signal });
  assert.equal(r1.status, 'completed', r1.error);
  assert.ok(existsSync(settings) && existsSync(join(dir, 'out.txt')));
  const first = session.store.tree.branch().find((e) => e.type === 'user');
  assert.ok(first);
  const preview = await session.previewRewind(first.id);
  assert.ok(preview.ok);
  assert.deepEqual(
    preview.files.map((f) => f.path.slice(dir.length + 1)),
    ['out.txt'],
    "only the command's own effect",
  );
  const r = await session.rewind(first.id, { mode: 'files' });
  assert.ok(r.ok);
  assert.equal(existsSync(join(dir, 'out.txt')), false);
  assert.equal(await readFile(settings, 'utf8'), '{ "capsule.approvals.allowedCommands": ["echo"] }\n', "the user's rule stays");
  const w = await session.tools.run('write_file', JSON.stringify({ path: '.vscode/settings.json', content: '{}' }), new AbortController().signal);
  assert.match(w.content, /one of Capsule's own files/, 'and the agent cannot write it');
});
