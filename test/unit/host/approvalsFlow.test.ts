// Inline approvals through the real extension: the diff editor on a virtual document, a card that survives a reload, deny with feedback reaching the model, always-allow by parsed prefix.
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ApprovalView, HostToWebview } from '../../../src/protocol/messages.js';
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

before(async () => {
  server = await startFakeOpenAI({ window: 20_000 });
  writeFileSync(join(h.workspace, 'a.ts'), 'export const a = 1;\n');
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const idle = (ms: readonly HostToWebview[]): boolean => ms.some((m) => m.type === 'busy' && !m.busy);
async function card(mark: number): Promise<ApprovalView> {
  await until(() => v.since(mark).some((m) => m.type === 'approvals' && m.approvals.length > 0), 'an approval card');
  const c = v.since(mark).flatMap((m) => (m.type === 'approvals' ? m.approvals : []))[0];
  assert.ok(c !== undefined);
  return c;
}
function toolMessages(): string[] {
  return server.chatRequests.flatMap((r) =>
    (r.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool').map((m) => String(m.content)),
  );
}

test('an edit opens the diff editor on the proposed text; the card survives a reload; Deny with feedback sends the words to the model', async () => {
  server.enqueue({ toolCalls: [{ name: 'edit_file', arguments: { path: 'a.ts', oldText: 'a = 1', newText: 'a = 2' } }] }, { text: 'Understood.' });
  const mark = v.mark();
  v.send({ type: 'send', text: 'Change a to 2', clientId: 'e1' });
  const c = await card(mark);
  assert.equal(c.kind, 'write');
  assert.match(c.diff ?? '', /^-export const a = 1;$/m);
  await until(() => h.state.diffs.length > 0, 'the diff editor');
  const diff = h.state.diffs[0];
  assert.ok(diff !== undefined);
  assert.match(diff.left, /a\.ts$/, 'the left side is the file on disk');
  const right = h.state.diffs[0]?.right ?? '';
  assert.equal(h.state.content({ scheme: 'capsule-proposed', toString: () => right }), 'export const a = 2;\n', 'the right side is the proposed text');

  const reload = v.mark();
  v.send({ type: 'ready' });
  await until(() => lastOf(v.since(reload), 'snapshot') !== undefined, 'a snapshot');
  assert.deepEqual(
    lastOf(v.since(reload), 'snapshot')?.approvals?.map((a) => a.id),
    [c.id],
    'the pending approval is still shown after a reload',
  );

  v.send({ type: 'approval', id: c.id, choice: 'deny', feedback: 'Use a named constant ONE instead.' });
  await until(() => idle(v.since(mark)), 'the turn to finish');
  assert.equal(
    h.state.asked.some((a) => a.kind === 'modal'),
    false,
    'no modal dialog',
  );
  assert.ok(
    toolMessages().some((t) => t.includes('The user said: "Use a named constant ONE instead."')),
    'the model received the feedback as the tool result',
  );
  assert.deepEqual(lastOf(v.since(mark), 'approvals')?.approvals, [], 'the card is gone');
});

test('Always allow keeps the rule the user chose (the command name by default) in user settings; echo step-303 then runs without asking; a compound line asks again; × removes it', async () => {
  const run = (command: string) => ({ toolCalls: [{ name: 'run_command', arguments: { command } }] });
  server.enqueue(run('echo first > first.txt'), { text: 'ok' });
  let mark = v.mark();
  v.send({ type: 'send', text: 'Run the first', clientId: 'c1' });
  const c = await card(mark);
  assert.equal(c.rule, undefined, 'a line with a redirection offers no rule');
  v.send({ type: 'approval', id: c.id, choice: 'allow' });
  await until(() => idle(v.since(mark)), 'the first turn');

  server.enqueue(run('echo step-203'), { text: 'ok' });
  mark = v.mark();
  v.send({ type: 'send', text: 'Step 203', clientId: 'c2' });
  const c2 = await card(mark);
  assert.equal(c2.rule, 'echo', 'the rule offered is the command name');
  assert.deepEqual(c2.ruleChoices, ['echo', 'echo step-203'], 'and its first words to pick from');
  assert.equal(c2.title, 'Run `echo step-203` in the workspace root');
  v.send({ type: 'approval', id: c2.id, choice: 'allowAlways', rule: 'echo', scope: 'user' });
  await until(() => idle(v.since(mark)), 'the second turn');
  const write = h.state.writes.find((w) => w.key === 'capsule.approvals.allowedCommands');
  assert.deepEqual(
    write && { value: write.value, target: write.target },
    { value: ['echo'], target: 1 },
    'stored in the user settings (ConfigurationTarget.Global)',
  );
  assert.deepEqual(lastOf(v.since(mark), 'approvals')?.allowRules, [{ rule: 'echo', scope: 'user' }], 'the view lists the rule with where it is kept');

  server.enqueue(run('echo step-303'), { text: 'ok' });
  mark = v.mark();
  v.send({ type: 'send', text: 'Step 303', clientId: 'c3' });
  await until(() => idle(v.since(mark)), 'the allowed turn');
  assert.equal(
    v.since(mark).some((m) => m.type === 'approvals' && m.approvals.length > 0),
    false,
    'echo step-303 ran without asking',
  );
  assert.ok(
    toolMessages().some((t) => t.includes('step-303')),
    'and it ran',
  );

  // A rule that is not how the command starts is not saved; the command is allowed once and the user told why.
  server.enqueue(run('touch made-1.txt'), { text: 'ok' });
  mark = v.mark();
  v.send({ type: 'send', text: 'Touch one', clientId: 'c3b' });
  const c3 = await card(mark);
  const writes = h.state.writes.length;
  v.send({ type: 'approval', id: c3.id, choice: 'allowAlways', rule: 'rm', scope: 'user' });
  await until(() => idle(v.since(mark)), 'the turn allowed once');
  assert.equal(h.state.writes.length, writes, 'nothing written');
  assert.ok(
    v.since(mark).some((m) => m.type === 'notice' && /was not saved/.test(m.text)),
    'said so',
  );

  // Removing it from the view's list: the next echo asks again.
  v.send({ type: 'removeAllowRule', rule: { rule: 'echo', scope: 'user' } });
  await until(() => h.state.config.get('capsule.approvals.allowedCommands') === undefined, 'the rule to go');

  h.state.config.set('capsule.approvals.allowedCommands', ['touch']);
  server.enqueue(run('touch made-2.txt'), { text: 'ok' });
  mark = v.mark();
  v.send({ type: 'send', text: 'Touch two', clientId: 'c3c' });
  await until(() => idle(v.since(mark)), 'the allowed turn');
  assert.equal(
    v.since(mark).some((m) => m.type === 'approvals' && m.approvals.length > 0),
    false,
    'no card for an allowed prefix',
  );
  assert.equal(existsSync(join(h.workspace, 'made-2.txt')), true);

  server.enqueue(run('touch made-3.txt; touch evil.txt'), { text: 'ok' });
  mark = v.mark();
  v.send({ type: 'send', text: 'Touch three', clientId: 'c4' });
  const c4 = await card(mark);
  v.send({ type: 'approval', id: c4.id, choice: 'deny' });
  await until(() => idle(v.since(mark)), 'the denied turn');
  assert.equal(existsSync(join(h.workspace, 'evil.txt')), false, 'a compound line never matches a prefix rule');
});
