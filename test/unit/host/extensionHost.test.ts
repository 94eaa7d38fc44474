// The extension activated in plain Node against a fake `vscode`: handshake order, validation, commands, settings, first-run setup.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FakeState } from '../../support/fakeVscode.js';
import { createHarness, lastOf, until } from './hostHarness.js';

const h = createHarness();
const { state } = h;

type Tree = { getChildren(n?: unknown): Promise<{ kind: string; summary?: { id: string } }[]> };

before(() => h.start());
after(() => h.stop());

test('views and all contributed commands are registered on activation', () => {
  assert.ok(state.providers.has('capsule.chat'));
  assert.ok(state.providers.has('capsule.checkpoints'));
  assert.deepEqual([...state.commands.keys()].sort(), [
    'capsule.acceptEdit',
    'capsule.addSelectionToChat',
    'capsule.compactContext',
    'capsule.compactUpToHere',
    'capsule.createCapsule',
    'capsule.createCheckpoint',
    'capsule.deleteChat',
    'capsule.exportCapsule',
    'capsule.importConversation',
    'capsule.inspectCapsule',
    'capsule.loadCapsule',
    'capsule.markMilestone',
    'capsule.markPivot',
    'capsule.mcpServers',
    'capsule.newChat',
    'capsule.redoCompaction',
    'capsule.refresh',
    'capsule.rejectEdit',
    'capsule.rewindHere',
    'capsule.rewindToCheckpoint',
    'capsule.selectModel',
    'capsule.setApiKey',
    'capsule.showBudget',
    'capsule.showLatestCapsule',
    'capsule.showProjectMemory',
    'capsule.switchChat',
    'capsule.toggleAutoCompact',
    'capsule.undoCompaction',
  ]);
});

test('the host posts nothing before ready, then a full snapshot first, and every message matches the schema', async () => {
  const v = h.openView(false);
  assert.match(v.webview.html, /Content-Security-Policy/);
  await until(() => /\$\(pulse\) \d/.test(state.statusText()), 'the session to open');
  assert.equal(v.webview.posted.length, 0, 'nothing may be posted before the webview is ready');

  v.send({ type: 'ready' });
  await until(() => v.messages().some((m) => m.type === 'snapshot' && m.setup !== null), 'the snapshot with the setup state');
  const first = v.messages()[0];
  assert.equal(first?.type, 'snapshot', 'the first message after ready is the snapshot');
  const snap = lastOf(v.messages(), 'snapshot');
  assert.ok(snap?.session, 'a session is open');
  assert.ok(snap.budget, 'a budget is computed');
  assert.equal(snap.budget.model, 'gpt-4o');
  assert.ok(snap.budget.effectiveTokens > 0, 'the system prompt counts');
  assert.equal(snap.budget.source, 'estimated');
  assert.equal(snap.settings.autoCompact, true);
  // No key and no base URL: nothing can answer yet, so the setup panel opens by itself.
  assert.equal(snap.setup?.required, true);
  assert.match(snap.setup?.message ?? '', /API key|base URL/);
  assert.equal(snap.currentModelId, 'gpt-4o');
  assert.deepEqual(snap.transcript, { items: [], hasMore: false });

  // Malformed input is dropped (and logged), never acted on.
  const before = v.mark();
  v.send({ type: 'command', command: 'rm -rf' });
  v.send('ready');
  assert.equal(v.mark(), before);
  assert.ok(state.log.some((l) => l.includes('malformed message')));

  // A message without a model is not lost silently: it shows as the user's, then why it was not sent.
  v.send({ type: 'send', text: 'hello?', clientId: 'c1' });
  await until(
    () => v.since(before).some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'error' && /Not sent/.test(i.text))),
    'the not-sent error',
  );
  const echo = v.since(before).find((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'user'));
  assert.ok(echo?.type === 'itemsAppended' && echo.items[0]?.kind === 'user' && echo.items[0].clientId === 'c1');

  // New chat: a new snapshot with another session, and the tree lists both chats.
  v.send({ type: 'command', command: 'newChat' });
  await until(() => v.messages().some((m) => m.type === 'snapshot' && m.session !== null && m.session.id !== snap.session?.id), 'the new chat');
  const tree = state.providers.get('capsule.checkpoints') as Tree;
  const roots = await tree.getChildren();
  assert.equal(roots.filter((n) => n.kind === 'session').length, 2);
  const children = await tree.getChildren(roots[0]);
  assert.equal(children[0]?.kind, 'info', 'an empty chat shows a placeholder, not an error');

  v.dispose();
  await h.command('capsule.showBudget'); // posting to a disposed view must not throw
});

test('toggle auto-compact flips the setting and the view follows', async () => {
  const v = h.openView();
  await h.command('capsule.toggleAutoCompact');
  assert.equal(state.config.get('capsule.compaction.auto'), false);
  await until(() => v.messages().some((m) => m.type === 'snapshot' && !m.settings.autoCompact && m.budget?.autoCompact === false), 'auto-compact off');
  await h.command('capsule.toggleAutoCompact');
  assert.equal(state.config.get('capsule.compaction.auto'), true);
  v.dispose();
});

test('an invalid combination shows its warning once, and again only after it was fixed', () => {
  const warnings = (s: FakeState): number => s.messages.filter((m) => m.level === 'warning' && /Compaction disabled/.test(m.text)).length;
  h.configure({ 'capsule.compaction.keepRecentTokens': 500_000 });
  assert.equal(warnings(state), 1);
  h.configure({ 'capsule.compaction.idleMinutes': 7 });
  assert.equal(warnings(state), 1, 'the same warning is not repeated');
  h.configure({ 'capsule.compaction.keepRecentTokens': undefined });
  h.configure({ 'capsule.compaction.keepRecentTokens': 500_000 });
  assert.equal(warnings(state), 2);
  h.configure({ 'capsule.compaction.keepRecentTokens': undefined });
});

test('a model override changes the limits the budget, the picker and the status bar use', async () => {
  const v = h.openView();
  h.configure({ 'capsule.model.contextWindow': 65000, 'capsule.model.maxOutputTokens': 8000 });
  await until(
    () => v.messages().some((m) => m.type === 'snapshot' && m.budget?.hardLimit === 48808 && m.budget.softLimit === 39046),
    'the docs/behaviour.md#tokens worked example',
  );
  await until(() => /\/ 48\.8k$/.test(state.statusText()), 'the status bar figure');
  v.dispose();
});

test('slash commands answer in the chat: /budget shows the docs/behaviour.md#observability fields, unknown commands say what exists', async () => {
  const v = h.openView();
  const mark = v.mark();
  v.send({ type: 'send', text: '/budget', clientId: 'b1' });
  v.send({ type: 'send', text: '/frobnicate now', clientId: 'b2' });
  await until(() => v.since(mark).filter((m) => m.type === 'itemsAppended').length >= 4, 'the answers');
  const items = v.since(mark).flatMap((m) => (m.type === 'itemsAppended' ? m.items : []));
  assert.deepEqual(
    items.filter((i) => i.kind === 'user').map((i) => (i.kind === 'user' ? i.clientId : '')),
    ['b1', 'b2'],
    'each command is echoed with its clientId, so the webview drops its pending chip',
  );
  const budget = items.find((i) => i.kind === 'info');
  assert.ok(budget?.kind === 'info');
  for (const field of ['Effective tokens', 'Soft limit', 'Hard limit', 'Safety reserve', 'Keep recent', 'Auto-compact', 'Next trigger'])
    assert.match(budget.text, new RegExp(field, 'i'));
  const unknown = items.find((i) => i.kind === 'error');
  assert.ok(unknown?.kind === 'error');
  assert.match(unknown.text, /Unknown command \/frobnicate.*\/compact/);
  v.dispose();
});

test('links open only with http, https or mailto; javascript: and command: are refused', async () => {
  const v = h.openView();
  v.send({ type: 'openLink', href: 'javascript:alert(1)' });
  v.send({ type: 'openLink', href: 'command:workbench.action.terminal.new' });
  v.send({ type: 'openLink', href: 'https://example.com/docs' });
  v.send({ type: 'openLink', href: 'mailto:dev@example.com' });
  await until(() => state.opened.length === 2, 'the allowed links');
  assert.deepEqual(state.opened, ['https://example.com/docs', 'mailto:dev@example.com']);
  await until(() => v.messages().filter((m) => m.type === 'notice' && /not opened/.test(m.text)).length === 2, 'the refusals');
  v.send({ type: 'copy', text: 'const x = 1;' });
  await until(() => state.clipboard.includes('const x = 1;'), 'the clipboard');
  v.dispose();
});
