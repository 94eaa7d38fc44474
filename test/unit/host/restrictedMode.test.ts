// Restricted Mode (an untrusted workspace): the Capsule view stays, says what works and what waits for trust, offers Manage Workspace Trust, and becomes the chat once trust is granted.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createHarness, lastOf, until, type OpenView } from './hostHarness.js';

const h = createHarness({ workspace: true });
let v: OpenView;

before(async () => {
  (h.api.workspace as { isTrusted: boolean }).isTrusted = false;
  await h.start();
  v = h.openView(false);
});

after(async () => {
  v.dispose();
  await h.stop();
});

test('the manifest declares limited support, so VS Code keeps the extension (and its view) in Restricted Mode', () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
    capabilities?: { untrustedWorkspaces?: { supported?: unknown; restrictedConfigurations?: string[] } };
    contributes: { commands: { command: string; enablement?: string }[] };
  };
  const u = pkg.capabilities?.untrustedWorkspaces;
  assert.equal(u?.supported, 'limited');
  for (const key of ['capsule.provider.baseUrl', 'capsule.approvals.allowedCommands'])
    assert.ok(u?.restrictedConfigurations?.includes(key), `${key}: a workspace value is ignored until trusted`);
  for (const id of ['capsule.compactContext', 'capsule.loadCapsule', 'capsule.createCapsule']) {
    assert.equal(pkg.contributes.commands.find((c) => c.command === id)?.enablement, 'isWorkspaceTrusted', `${id} waits for trust`);
  }
});

test('untrusted: the view explains what works and what does not, with a Manage Workspace Trust button and no script', () => {
  const html = v.webview.html;
  assert.match(html, /Capsule is in Restricted Mode/);
  assert.match(html, /What works/);
  assert.match(html, /What waits for trust/);
  assert.match(html, /<a class="trust-button" href="command:workbench\.trust\.manage" role="button">Manage Workspace Trust<\/a>/);
  assert.doesNotMatch(html, /<script/);
  assert.match(html, /default-src 'none'/);
  assert.doesNotMatch(html, /script-src/);
  assert.deepEqual(v.webview.options, {
    enableScripts: false,
    enableCommandUris: ['workbench.trust.manage'],
    localResourceRoots: [(v.webview.options as { localResourceRoots: unknown[] }).localResourceRoots[0]],
  });
});

test('granting trust turns the view into the chat without a reload: the chat shell loads and answers ready with a snapshot', async () => {
  h.state.grantTrust();
  assert.match(v.webview.html, /<script nonce="[^"]+" src="[^"]+webview\.js"><\/script>/);
  assert.equal((v.webview.options as { enableScripts: boolean }).enableScripts, true);
  v.send({ type: 'ready' });
  await until(() => lastOf(v.messages(), 'snapshot') !== undefined, 'the chat snapshot');
  assert.doesNotMatch(v.webview.html, /Restricted Mode/);
});
