// A folder's AGENTS.md that applied before a compaction still applies after the chat is reopened or its leaf moves: the epoch base records the paths the calls named (`touched`), and the sync reads only the entries after it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test, type TestContext } from 'node:test';
import { startFakeOpenAI, type FakeOpenAIServer, type RecordedRequest } from '../../fakes/openaiServer.js';
import { agentResponder, SMALL_SETTINGS, tempDir } from '../agent/agentHelpers.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import { messageTexts, openWithInstructions, systemText, workspaceWith } from './instructionHelpers.js';

const RULE = 'PKG-RULE-42: every export in pkg/ is documented.';
const signal = new AbortController().signal;

interface Reopened {
  readonly server: FakeOpenAIServer;
  readonly path: string;
  /** The session file's entries as the compaction left them. */
  readonly lines: readonly { type: string; mode?: string; touched?: string[] }[];
  readonly store: JsonlSessionStore;
  readonly again: Awaited<ReturnType<typeof openWithInstructions>>;
}

/** A chat that read each of `files` in a turn of its own and compacted, reopened tail first with a compact history. */
async function compactedAndReopened(t: TestContext, files: readonly string[]): Promise<Reopened> {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 32_000 });
  t.after(() => server.close());
  server.setFallback(
    agentResponder((text) => {
      const m = /^Read (\S+)/.exec(text);
      return m === null ? [] : [{ name: 'read_file', arguments: { path: m[1] ?? '' } }];
    }),
  );
  const ws = await workspaceWith(dir, { 'pkg/AGENTS.md': `${RULE}\n`, 'pkg/a.ts': 'export const a = 1;\n' });
  const settings = { ...SMALL_SETTINGS, keepRecentTokens: 200 };
  const first = await openWithInstructions(server, dir, ws, { window: 32_000, maxOutput: 1000, settings });
  for (const f of files) assert.equal((await first.session.turn({ userText: `Read ${f} and check it.`, signal })).status, 'completed');
  const c = await first.session.compact();
  assert.equal(c.outcomes[0]?.outcome, 'completed', JSON.stringify(c.outcomes[0]));
  await first.session.close();
  const lines = (await readFile(first.path, 'utf8'))
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as { type: string; mode?: string; touched?: string[] });
  // Reopened with a compact history: the turns before the compaction stay in the file, read back only when asked for.
  const store = await JsonlSessionStore.open(first.path, { tailFirst: true });
  await store.whenIndexed();
  const again = await openWithInstructions(server, dir, ws, { window: 32_000, maxOutput: 1000, settings, sessionPath: first.path, store });
  t.after(() => again.session.close());
  return { server, path: first.path, lines, store, again };
}

/** Every request of the turn that asks to read `file` carries the folder rule. */
async function ruleReachesTheModel(r: Reopened, file: string): Promise<void> {
  const before = r.server.chatRequests.length;
  assert.equal((await r.again.session.turn({ userText: `Read ${file} and check it.`, signal })).status, 'completed');
  const sent: RecordedRequest[] = r.server.chatRequests.slice(before);
  assert.ok(sent.length > 0);
  for (const req of sent)
    assert.ok(
      [systemText(req), ...messageTexts(req)].some((x) => x.includes(RULE)),
      'the folder rule still reaches the model',
    );
}

test('the epoch base records the touched paths, and a reopened chat keeps a folder rule in force without walking back', async (t) => {
  const r = await compactedAndReopened(t, ['pkg/a.ts', 'src/f0.ts', 'src/f1.ts']);
  const base = r.lines.filter((e) => e.type === 'system_update' && e.mode === 'base').at(-1);
  assert.ok(base?.touched?.includes('pkg/a.ts'), `the new epoch's base records the touched paths: ${JSON.stringify(base?.touched)}`);
  // The rule still applies, and the first turn appends no update dropping it.
  await ruleReachesTheModel(r, 'src/f2.ts');
  const after = (await readFile(r.path, 'utf8'))
    .trim()
    .split('\n')
    .slice(r.lines.length + 1);
  assert.ok(!after.some((l) => l.includes('"system_update"') && l.includes('pkg/AGENTS.md')), 'no update drops or repeats pkg/AGENTS.md');
});

test('after a rewind the folder rule stays in force, read from the latest recorded list instead of the whole branch', async (t) => {
  const r = await compactedAndReopened(t, ['pkg/a.ts', 'src/f0.ts', 'src/f1.ts', 'src/f2.ts']);
  for (const f of ['src/f3.ts', 'src/f4.ts']) assert.equal((await r.again.session.turn({ userText: `Read ${f} and check it.`, signal })).status, 'completed');
  const back = r.store.tree
    .branch()
    .filter((e) => e.type === 'user')
    .at(-1);
  assert.ok(back !== undefined);
  assert.equal((await r.again.session.rewind(back.id)).ok, true);

  // The messages the capsule summarized (before the ones it kept): no longer model input, they were read again by the
  // instruction sync after a leaf move, to find the paths the calls had named.
  const branch = r.store.tree.branch();
  const capsule = branch.find((e) => e.type === 'capsule');
  assert.ok(capsule?.type === 'capsule');
  const kept = branch.findIndex((e) => e.id === capsule.firstKeptEntryId);
  const older = new Set(
    branch
      .slice(0, kept)
      .filter((e) => e.type === 'user' || e.type === 'assistant' || e.type === 'tool_result')
      .map((e) => e.id),
  );
  assert.ok(older.size >= 6, `the capsule summarized ${older.size} messages`);
  let olderRead = 0;
  const get = r.store.tree.get.bind(r.store.tree);
  r.store.tree.get = (id: string) => {
    if (older.has(id)) olderRead++;
    return get(id);
  };
  await ruleReachesTheModel(r, 'src/f5.ts');
  assert.equal(olderRead, 0, 'the turn after the rewind read none of the summarized messages');
});
