// The extension activated in plain Node against a fake `vscode`: handshake order, validation, commands, settings warning.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HostToWebviewSchema, type HostToWebview } from '../../../src/protocol/messages.js';
import { createFakeVscode, fakeWebviewView, installFakeVscode, type FakeState } from './fakeVscode.js';

const ROOT = join(__dirname, '..', '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'capsule-host-'));
const { api, state } = createFakeVscode(join(tmp, 'workspace'));
installFakeVscode(api);

type Ext = typeof import('../../../src/extension.js');
let ext: Ext;
const memento = (): { get: (k: string) => unknown; update: (k: string, v: unknown) => Promise<void>; keys: () => string[] } => {
  const m = new Map<string, unknown>();
  return { get: (k) => m.get(k), update: async (k, v) => void m.set(k, v), keys: () => [...m.keys()] };
};
const uri = (p: string): unknown => (api.Uri as { file(p: string): unknown }).file(p);
const context = {
  subscriptions: [] as { dispose(): unknown }[],
  storageUri: uri(join(tmp, 'storage')),
  globalStorageUri: uri(join(tmp, 'global')),
  workspaceState: memento(),
  globalState: memento(),
  extensionUri: uri(ROOT),
  extension: { packageJSON: { version: '0.0.0-test' } },
};

/** Waits until `cond` holds, checking after each turn of the event loop (file I/O needs a few). */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for ${what}`);
}

function posted(webview: { posted: unknown[] }): HostToWebview[] {
  return webview.posted.map((m) => HostToWebviewSchema.parse(m));
}

type Resolver = { resolveWebviewView(v: unknown): void };
type Tree = { getChildren(n?: unknown): Promise<{ kind: string; summary?: { id: string } }[]> };

before(async () => {
  ext = await import('../../../src/extension.js');
  ext.activate(context as never);
});

after(async () => {
  await ext.deactivate();
  for (const d of context.subscriptions.splice(0)) d.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

test('views and all contributed commands are registered on activation', () => {
  assert.ok(state.providers.has('capsule.chat'));
  assert.ok(state.providers.has('capsule.checkpoints'));
  assert.deepEqual([...state.commands.keys()].sort(), [
    'capsule.compactContext',
    'capsule.newChat',
    'capsule.refresh',
    'capsule.showBudget',
    'capsule.showLatestCapsule',
    'capsule.toggleAutoCompact',
  ]);
});

test('the host posts nothing before ready, then a full snapshot first, and every message matches the schema', async () => {
  const chat = state.providers.get('capsule.chat') as Resolver;
  const v = fakeWebviewView();
  chat.resolveWebviewView(v.view);
  assert.match(v.webview.html, /Content-Security-Policy/);
  await until(() => /\$\(pulse\) \d/.test(state.statusText()), 'the session to open');
  assert.equal(v.webview.posted.length, 0, 'nothing may be posted before the webview is ready');

  v.webview.send({ type: 'ready' });
  await until(() => v.webview.posted.length > 0, 'the snapshot');
  const [first] = posted(v.webview);
  assert.equal(first?.type, 'snapshot');
  if (first?.type !== 'snapshot') return;
  assert.ok(first.session, 'a session is open');
  assert.ok(first.budget, 'a budget is computed');
  assert.equal(first.budget.model, 'gpt-4o');
  assert.ok(first.budget.effectiveTokens > 0, 'the system prompt counts');
  assert.equal(first.budget.source, 'estimated');
  assert.equal(first.settings.autoCompact, true);

  // Malformed input is dropped (and logged), never acted on.
  const before = v.webview.posted.length;
  v.webview.send({ type: 'command', command: 'rm -rf' });
  v.webview.send('ready');
  assert.equal(v.webview.posted.length, before);
  assert.ok(state.log.some((l) => l.includes('malformed message')));

  // A command from the webview runs the contributed command; compaction is honest about not existing yet.
  v.webview.send({ type: 'command', command: 'compactContext' });
  await until(() => state.messages.some((m) => /not available yet/.test(m.text)), 'the compaction notice');
  await until(() => posted(v.webview).some((m) => m.type === 'notice'), 'the notice in the view');

  // New chat: a new snapshot with another session, and the tree lists both chats.
  v.webview.send({ type: 'command', command: 'newChat' });
  await until(() => posted(v.webview).some((m) => m.type === 'snapshot' && m.session !== null && m.session.id !== first.session?.id), 'the new chat');
  const tree = state.providers.get('capsule.checkpoints') as Tree;
  const roots = await tree.getChildren();
  assert.equal(roots.filter((n) => n.kind === 'session').length, 2);
  const children = await tree.getChildren(roots[0]);
  assert.equal(children[0]?.kind, 'info', 'an empty chat shows a placeholder, not an error');

  v.dispose();
  await state.commands.get('capsule.refresh')?.(); // posting to a disposed view must not throw
});

test('toggle auto-compact flips the setting and the view follows', async () => {
  const chat = state.providers.get('capsule.chat') as Resolver;
  const v = fakeWebviewView();
  chat.resolveWebviewView(v.view);
  v.webview.send({ type: 'ready' });
  await state.commands.get('capsule.toggleAutoCompact')?.();
  assert.equal(state.config.get('capsule.compaction.auto'), false);
  await until(() => posted(v.webview).some((m) => m.type === 'snapshot' && !m.settings.autoCompact && m.budget?.autoCompact === false), 'auto-compact off');
  await state.commands.get('capsule.toggleAutoCompact')?.();
  assert.equal(state.config.get('capsule.compaction.auto'), true);
});

test('an invalid combination shows its warning once, and again only after it was fixed', async () => {
  const warnings = (s: FakeState): number => s.messages.filter((m) => m.level === 'warning' && /Compaction disabled/.test(m.text)).length;
  const change = (key: string, value: unknown): void => {
    state.config.set(key, value);
    state.configEvents.fire({ affectsConfiguration: (s: string) => key.startsWith(s) });
  };
  change('capsule.compaction.keepRecentTokens', 500_000);
  assert.equal(warnings(state), 1);
  change('capsule.compaction.idleMinutes', 7);
  assert.equal(warnings(state), 1, 'the same warning is not repeated');
  change('capsule.compaction.keepRecentTokens', undefined);
  change('capsule.compaction.keepRecentTokens', 500_000);
  assert.equal(warnings(state), 2);
  change('capsule.compaction.keepRecentTokens', undefined);
});

test('a model override changes the limits the budget uses', async () => {
  const chat = state.providers.get('capsule.chat') as Resolver;
  const v = fakeWebviewView();
  chat.resolveWebviewView(v.view);
  v.webview.send({ type: 'ready' });
  state.config.set('capsule.model.contextWindow', 65000);
  state.config.set('capsule.model.maxOutputTokens', 8000);
  state.configEvents.fire({ affectsConfiguration: (s: string) => 'capsule.model'.startsWith(s) });
  await until(() => posted(v.webview).some((m) => m.type === 'snapshot' && m.budget?.hardLimit === 48808 && m.budget.softLimit === 39046), 'the S3 worked example');
  assert.match(state.statusText(), /\/ 48\.8k$/);
});

test('user intents from the chat reach onIntent listeners validated; malformed ones never do', async () => {
  type Intents = { onIntent(listener: (i: unknown) => void): { dispose(): void } };
  const chat = state.providers.get('capsule.chat') as Resolver & Intents;
  const v = fakeWebviewView();
  chat.resolveWebviewView(v.view);
  const seen: unknown[] = [];
  const sub = chat.onIntent((i) => seen.push(i));
  try {
    v.webview.send({ type: 'ready' });
    const intents = [
      { type: 'send', text: '/compact auth', clientId: 'c1' },
      { type: 'cancel' },
      { type: 'loadOlder', beforeId: 'e_1' },
      { type: 'openLink', href: 'https://example.com' },
    ];
    for (const i of intents) v.webview.send(i);
    v.webview.send({ type: 'send', text: '' });
    v.webview.send({ type: 'rewind', checkpointId: '../../x' });
    v.webview.send({ type: 'setApiKey' });
    assert.deepEqual(seen, intents);
  } finally {
    sub.dispose();
    v.dispose();
  }
});
