// "Compact Up to Here" from the Checkpoints tree, on the open chat: the same user compaction as the message's own button.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isSummaryRequest, startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import { closeAgentView, createHarness, openAgentView, type OpenView, turnOn, until } from './hostHarness.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 64_000,
    'capsule.model.maxOutputTokens': 1_500,
    'capsule.compaction.keepRecentTokens': 1_000,
    'capsule.compaction.minTokensForAutoCompact': 0,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

const LONG = Array.from({ length: 80 }, (_, i) => `Finding ${i}: module ${i % 7} behaves as documented and its tests pass.`).join('\n');

type Node = { kind: string; moment?: { message?: { id: string; content: string } }; child?: { kind: string } };
type Tree = { getChildren(n?: unknown): Promise<Node[]> };
const tree = (): Tree => h.state.providers.get('capsule.checkpoints') as Tree;

before(async () => {
  server = await startFakeOpenAI({ window: 64_000 });
  server.setFallback((req) => (isSummaryRequest(req.body) ? { text: GOOD_SUMMARY } : { text: LONG }));
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const errors = (): string[] => v.messages().flatMap((m) => (m.type === 'itemsAppended' ? m.items.flatMap((i) => (i.kind === 'error' ? [i.text] : [])) : []));

async function rows(): Promise<Node[]> {
  const [session] = (await tree().getChildren()).filter((n) => n.kind === 'session');
  return tree().getChildren(session);
}

test('Compact Up to Here from the tree: offered only after the capsule in force, one plain refusal otherwise, and it compacts', async () => {
  for (const t of ['Read the parser', 'Check the lexer', 'Fix the printer']) await turnOn(v, t);
  await turnOn(v, '/compact');
  for (const t of ['Add a test', 'Run the tests']) await turnOn(v, t);
  const list = await rows();
  const row = (text: string): Node | undefined => list.find((n) => n.moment?.message?.content === text);
  const old = row('Read the parser');
  const late = row('Run the tests');
  assert.ok(old && late, 'both rows');
  const item = (n: Node): { contextValue?: string; label?: unknown } =>
    (tree() as unknown as { getTreeItem(n: Node): { contextValue?: string; label?: unknown } }).getTreeItem(n);
  assert.equal(
    item(old).contextValue,
    'capsule.message.summarized',
    'a summarized message does not offer Compact Up to Here (package.json matches capsule.message exactly)',
  );
  assert.equal(item(late).contextValue, 'capsule.message');
  assert.equal(item(late).label, 'Run the tests', 'the row is the message, no "Task N:" prefix');

  // Invoked anyway (an old tree row, the palette): one error, in words, without an entry id.
  const before = errors().length;
  await h.command('capsule.compactUpToHere', old, [old]);
  await until(() => errors().length > before, 'the refusal');
  const said = errors().slice(before);
  assert.match(said[0] ?? '', /already summarizes that message/);
  assert.doesNotMatch(said[0] ?? '', /\be_[a-z0-9]/i, 'no entry id');

  const mark = v.mark();
  await h.command('capsule.compactUpToHere', late, [late]);
  await until(() => v.since(mark).some((m) => m.type === 'barrier' && m.phase === 'end'), 'the compaction to end');
  const end = v
    .since(mark)
    .filter((m) => m.type === 'barrier')
    .at(-1);
  assert.equal(end?.type === 'barrier' ? end.result?.outcome : undefined, 'completed', 'the tree row compacts like the message button');
  // The compaction ran after the refusal in the same queue: anything the refusal still had to say would be here by now.
  assert.deepEqual(errors().slice(before), said.slice(0, 1), 'the refusal was said once, and the compaction added no error');
});
