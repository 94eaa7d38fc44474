// Context the user gives, through the real extension: the `@` file search, attachments read on send (the model receives them), refusals, opening clicked paths, an edit's diff, Add Selection.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { HostToWebview, TranscriptItem } from '../../../src/protocol/messages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, lastOf, openAgentView, type OpenView, until } from './hostHarness.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 20_000,
    'capsule.model.maxOutputTokens': 2_000,
    'capsule.compaction.safetyReserveTokens': 1_000,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

const APP = 'export function app(): string {\n  return "MARKER-APP-7731";\n}\n';

before(async () => {
  server = await startFakeOpenAI({ window: 20_000 });
  mkdirSync(join(h.workspace, 'src', 'lib'), { recursive: true });
  mkdirSync(join(h.workspace, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(h.workspace, 'src', 'app.ts'), APP);
  writeFileSync(join(h.workspace, 'src', 'lib', 'apply.ts'), 'export const apply = 1;\n');
  writeFileSync(join(h.workspace, 'node_modules', 'dep', 'app.js'), 'module.exports = 1;\n');
  writeFileSync(join(h.workspace, 'blob.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
  writeFileSync(join(h.workspace, 'notes.md'), Array.from({ length: 30 }, (_, i) => `note line ${i + 1}`).join('\n'));
  execFileSync('mkfifo', [join(h.workspace, 'pipe')]);
  for (let i = 0; i < 60; i++) writeFileSync(join(h.workspace, `gen${i}.txt`), 'x');
  // Hidden from the completion like the explorer hides it; it can still be attached by name.
  h.state.config.set('files.exclude', { '**/*.md': true });
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const idle = (ms: readonly HostToWebview[]): boolean => ms.some((m) => m.type === 'busy' && !m.busy);
const lastRequestText = (): string => JSON.stringify(server.chatRequests[server.chatRequests.length - 1]?.body ?? {});
function snapshotItems(): TranscriptItem[] {
  const mark = v.mark();
  v.send({ type: 'ready' });
  return lastOf(v.since(mark), 'snapshot')?.transcript.items ?? [];
}

test('@ completion: workspace files ranked by the query, dependencies left out, capped, answered with the request id', async () => {
  const mark = v.mark();
  v.send({ type: 'findFiles', requestId: 7, query: 'app' });
  await until(() => lastOf(v.since(mark), 'fileMatches') !== undefined, 'file matches');
  const m = lastOf(v.since(mark), 'fileMatches');
  assert.equal(m?.requestId, 7);
  assert.equal(m?.files[0], 'src/app.ts', 'the file name match comes first');
  assert.ok(m?.files.includes('src/lib/apply.ts'), 'letters in order match too');
  assert.ok(!m?.files.some((f) => f.startsWith('node_modules/')), 'node_modules is excluded');
  assert.match(h.state.searches[0]?.exclude ?? '', /node_modules/);

  const m2 = v.mark();
  v.send({ type: 'findFiles', requestId: 8, query: '' });
  await until(() => lastOf(v.since(m2), 'fileMatches') !== undefined, 'file matches');
  const all = lastOf(v.since(m2), 'fileMatches')?.files ?? [];
  assert.equal(all.length, 50, 'at most 50 matches');
  assert.ok(!all.includes('notes.md'), 'files.exclude is respected');
});

test('an attached file is read on send like read_file: the model request carries its content, the transcript records a read', async () => {
  server.enqueue({ text: 'It returns a marker.' });
  const mark = v.mark();
  v.send({ type: 'send', text: 'What does @src/app.ts return?', clientId: 'a1', attachments: [{ path: 'src/app.ts' }] });
  await until(() => idle(v.since(mark)), 'the turn');
  const body = lastRequestText();
  assert.ok(body.includes('MARKER-APP-7731'), 'the file content reached the model');
  assert.ok(body.includes('"name":"read_file"') || body.includes('read_file'), 'as a read_file exchange');
  const branch = snapshotItems();
  const tool = branch.find((i) => i.kind === 'tool' && i.name === 'read_file');
  assert.ok(tool && tool.kind === 'tool' && tool.status === 'ok', 'the read shows as a tool row');
  assert.deepEqual(tool.kind === 'tool' ? tool.links : undefined, ['src/app.ts'], 'its path is a link');
  const mine = branch.filter((i) => i.kind === 'user').pop();
  assert.deepEqual(mine?.kind === 'user' ? mine.links : undefined, ['src/app.ts'], 'the mention in the message is a link too');
});

test('a line range attaches only those lines; missing, outside, binary and folder attachments are refused with a clear notice', async () => {
  server.enqueue({ text: 'Seen.' });
  const mark = v.mark();
  v.send({
    type: 'send',
    text: 'Look at these',
    clientId: 'a2',
    attachments: [
      { path: 'notes.md', startLine: 3, endLine: 4 },
      { path: '../../etc/passwd' },
      { path: 'missing.ts' },
      { path: 'blob.bin' },
      { path: 'src' },
      { path: 'pipe' },
    ],
  });
  await until(() => idle(v.since(mark)), 'the turn');
  const notice = v.since(mark).find((m) => m.type === 'notice' && m.text.startsWith('Not attached'));
  assert.ok(notice && notice.type === 'notice');
  assert.equal(notice.level, 'warning');
  assert.match(notice.text, /@\.\.\/\.\.\/etc\/passwd: "\.\.\/\.\.\/etc\/passwd" is outside the workspace/);
  assert.match(notice.text, /@missing\.ts: "missing\.ts" does not exist/);
  assert.match(notice.text, /@blob\.bin: "blob\.bin" looks like a binary file/);
  assert.match(notice.text, /@src: "src" is a folder/);
  assert.match(notice.text, /@pipe: "pipe" is not a regular file/, 'a FIFO is refused without hanging on it');
  const body = lastRequestText();
  assert.ok(body.includes('note line 3') && body.includes('note line 4'), 'the range was read');
  assert.ok(!body.includes('note line 5') && !body.includes('root:'), 'nothing else was');
});

test('a clicked path opens only inside the workspace, at its line', async () => {
  let mark = v.mark();
  v.send({ type: 'openFile', path: '../../etc/passwd' });
  await until(() => v.since(mark).some((m) => m.type === 'notice'), 'a refusal');
  assert.match(lastOf(v.since(mark), 'notice')?.text ?? '', /^Not opened: "\.\.\/\.\.\/etc\/passwd" is outside the workspace/);
  assert.equal(h.state.shown.length, 0, 'nothing was opened');
  mark = v.mark();
  v.send({ type: 'openFile', path: '/etc/hostname' });
  await until(() => v.since(mark).some((m) => m.type === 'notice'), 'a refusal');
  assert.equal(h.state.shown.length, 0);

  v.send({ type: 'openFile', path: 'src/app.ts', line: 2, column: 3 });
  await until(() => h.state.shown.length === 1, 'the editor');
  const shown = h.state.shown[0] as { target: { fsPath: string }; options: { selection: { start: { line: number; character: number } } } };
  assert.match(shown.target.fsPath, /src\/app\.ts$/);
  assert.deepEqual({ ...shown.options.selection.start }, { line: 1, character: 2 }, 'zero-based in the editor');
});

test('paths in an answer that exist become links; others and URLs do not', async () => {
  server.enqueue({ text: 'See `src/app.ts:2`, src/lib/apply.ts and src/nothing.ts, or https://example.com/src/app.ts.' });
  const mark = v.mark();
  v.send({ type: 'send', text: 'Where?', clientId: 'a3' });
  await until(() => idle(v.since(mark)), 'the turn');
  const answer = snapshotItems()
    .filter((i) => i.kind === 'assistant')
    .pop();
  assert.ok(answer && answer.kind === 'assistant');
  assert.deepEqual([...(answer.links ?? [])].sort(), ['src/app.ts', 'src/lib/apply.ts']);
});

test('Show diff on an applied edit opens the diff editor of exactly that edit; a refused one says why', async () => {
  server.enqueue(
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/lib/apply.ts', oldText: 'apply = 1', newText: 'apply = 2' } }] },
    { text: 'Done.' },
  );
  const mark = v.mark();
  v.send({ type: 'send', text: 'Change apply', clientId: 'a4' });
  await until(() => v.since(mark).some((m) => m.type === 'approvals' && m.approvals.length > 0), 'the approval');
  const card = v.since(mark).flatMap((m) => (m.type === 'approvals' ? m.approvals : []))[0];
  assert.ok(card);
  v.send({ type: 'approval', id: card.id, choice: 'allow' });
  await until(() => idle(v.since(mark)), 'the turn');
  writeFileSync(join(h.workspace, 'src', 'lib', 'apply.ts'), 'export const apply = 3;\n'); // a later change must not leak into this edit's diff
  const row = snapshotItems()
    .filter((i) => i.kind === 'tool' && i.name === 'edit_file')
    .pop();
  assert.ok(row && row.kind === 'tool' && row.diff === true, 'the applied edit offers a diff');
  const before = h.state.diffs.length;
  v.send({ type: 'showDiff', itemId: row.id });
  await until(() => h.state.diffs.length > before, 'the diff editor');
  const d = h.state.diffs[h.state.diffs.length - 1];
  assert.ok(d);
  assert.match(d.title, /src\/lib\/apply\.ts \(before ↔ after, edited by Capsule\)/);
  assert.equal(h.state.content({ scheme: 'capsule-snapshot', toString: () => d.left }), 'export const apply = 1;\n');
  assert.equal(h.state.content({ scheme: 'capsule-snapshot', toString: () => d.right }), 'export const apply = 2;\n');

  const m2 = v.mark();
  v.send({ type: 'showDiff', itemId: `${row.id.split('/')[0]}/nope` });
  await until(() => v.since(m2).some((m) => m.type === 'notice'), 'a notice');
  assert.match(lastOf(v.since(m2), 'notice')?.text ?? '', /no longer on this branch/);
});

test('Add Selection to Chat puts a mention with the line range in the composer; outside the workspace it says so', async () => {
  const Uri = h.api.Uri as { file(p: string): unknown };
  const pos = (line: number, character: number) => ({ line, character });
  h.state.activeEditor = {
    document: { uri: Uri.file(join(h.workspace, 'notes.md')), isDirty: false },
    selection: { start: pos(4, 2), end: pos(7, 0), isEmpty: false },
  };
  const mark = v.mark();
  await h.command('capsule.addSelectionToChat');
  const m = lastOf(v.since(mark), 'mention');
  assert.deepEqual(
    m && { mention: m.mention, attachment: m.attachment },
    { mention: '@notes.md:5-7', attachment: { path: 'notes.md', startLine: 5, endLine: 7 } },
    'a selection ending at a line start leaves that line out',
  );

  h.state.activeEditor = { document: { uri: Uri.file('/etc/hostname'), isDirty: false }, selection: { start: pos(0, 0), end: pos(0, 0), isEmpty: true } };
  await h.command('capsule.addSelectionToChat');
  assert.ok(h.state.messages.some((x) => x.level === 'warning' && /only files inside the workspace/.test(x.text)));
  h.state.activeEditor = undefined;
  await h.command('capsule.addSelectionToChat');
  assert.ok(h.state.messages.some((x) => /open a file and select some lines/.test(x.text)));
});

test('Show diff of a created file has an empty left side; a refused edit offers no diff', async () => {
  server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'made.txt', content: 'new content\n' } }] }, { text: 'Made.' });
  let mark = v.mark();
  v.send({ type: 'send', text: 'Make a file', clientId: 'a5' });
  await until(() => v.since(mark).some((m) => m.type === 'approvals' && m.approvals.length > 0), 'the approval');
  const card = v.since(mark).flatMap((m) => (m.type === 'approvals' ? m.approvals : []))[0];
  assert.ok(card);
  v.send({ type: 'approval', id: card.id, choice: 'allow' });
  await until(() => idle(v.since(mark)), 'the turn');
  const row = snapshotItems()
    .filter((i) => i.kind === 'tool' && i.name === 'write_file')
    .pop();
  assert.ok(row && row.kind === 'tool' && row.diff === true);
  const before = h.state.diffs.length;
  v.send({ type: 'showDiff', itemId: row.id });
  await until(() => h.state.diffs.length > before, 'the diff editor');
  const d = h.state.diffs[h.state.diffs.length - 1];
  assert.ok(d);
  assert.match(d.title, /made\.txt \(before ↔ after, created by Capsule\)/);
  assert.equal(h.state.content({ scheme: 'capsule-snapshot', toString: () => d.left }), '');
  assert.equal(h.state.content({ scheme: 'capsule-snapshot', toString: () => d.right }), 'new content\n');

  server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'refused.txt', content: 'no' } }] }, { text: 'Fine.' });
  mark = v.mark();
  v.send({ type: 'send', text: 'Make another', clientId: 'a6' });
  await until(() => v.since(mark).some((m) => m.type === 'approvals' && m.approvals.length > 0), 'the approval');
  const card2 = v.since(mark).flatMap((m) => (m.type === 'approvals' ? m.approvals : []))[0];
  assert.ok(card2);
  v.send({ type: 'approval', id: card2.id, choice: 'deny' });
  await until(() => idle(v.since(mark)), 'the turn');
  const refused = snapshotItems()
    .filter((i) => i.kind === 'tool' && i.name === 'write_file')
    .pop();
  assert.ok(refused && refused.kind === 'tool' && refused.diff === undefined, 'a denied write has no Show diff');
  const m2 = v.mark();
  v.send({ type: 'showDiff', itemId: refused.id });
  await until(() => v.since(m2).some((m) => m.type === 'notice'), 'a notice');
  assert.match(lastOf(v.since(m2), 'notice')?.text ?? '', /not applied/);
});
