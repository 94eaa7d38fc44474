// The ‹ 1/2 › switcher through the protocol: edit & resend makes a fork the items carry, switching moves the leaf to each branch's newest entry (live items equal a fresh snapshot), and a switch during a compaction asks first and leaves no late capsule.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { BranchView, HostToWebview, TranscriptItem } from '../../../src/protocol/messages.js';
import { isSummaryRequest, lastUserText, startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import { closeAgentView, createHarness, lastOf, openAgentView, type OpenView, turnOn, until } from './hostHarness.js';
import { replayItems } from './webviewReplay.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.compaction.safetyReserveTokens': 500,
    'capsule.compaction.keepRecentTokens': 300,
    'capsule.compaction.minReclaimableTokens': 300,
    'capsule.compaction.minTokensForAutoCompact': 0,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

const FINDINGS = Array.from({ length: 40 }, (_, i) => `Finding ${i}: module ${i % 7} behaves as documented.`).join('\n');

before(async () => {
  server = await startFakeOpenAI({ window: 24_000 });
  server.setFallback((req) => (isSummaryRequest(req.body) ? { text: GOOD_SUMMARY } : { text: `Answer to: ${lastUserText(req.body)}\n\n${FINDINGS}` }));
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const shown = (): TranscriptItem[] => replayItems(v.messages());
const userNamed = (text: string): (TranscriptItem & { kind: 'user' }) | undefined =>
  shown().find((i): i is TranscriptItem & { kind: 'user' } => i.kind === 'user' && i.text === text);
const branchOf = (text: string): BranchView | undefined => userNamed(text)?.branch;
const lastRequestUsers = (): string[] => {
  const req = server.chatRequests.filter((r) => !isSummaryRequest(r.body as never)).at(-1);
  return ((req?.body as { messages: { role: string; content: unknown }[] } | undefined)?.messages ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => String(m.content));
};

/** What `v` holds now equals what a freshly opened view is sent. */
async function agrees(stage: string): Promise<void> {
  const live = shown();
  const reload = v.mark();
  v.send({ type: 'ready' });
  await until(() => lastOf(v.since(reload), 'snapshot') !== undefined, 'the reloaded view');
  assert.deepEqual(live, lastOf(v.since(reload), 'snapshot')?.transcript.items, `${stage}: live items equal a fresh snapshot`);
}

/** Sends a switch and waits for the snapshot of the branch it shows. */
async function switchTo(entryId: string): Promise<HostToWebview[]> {
  const mark = v.mark();
  v.send({ type: 'switchBranch', entryId });
  await until(() => lastOf(v.since(mark), 'snapshot')?.transcript.items.some((i) => i.id === entryId) === true, `the branch of ${entryId}`);
  return v.since(mark);
}

function sessionEntries(): { type: string; id: string; forEntryId?: string }[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.jsonl') && !name.includes('flight')) files.push(p);
    }
  };
  walk(h.storage);
  return files
    .flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as { type: string; id: string; forEntryId?: string }),
    )
    .filter((e) => e.type !== 'session');
}

test('edit & resend makes a fork the items carry; ‹ and › move between the branches, nothing is deleted, live equals a fresh snapshot', async () => {
  await turnOn(v, 'First question.');
  await turnOn(v, 'Second question.');
  const original = userNamed('Second question.');
  assert.ok(original);
  assert.equal(original.branch, undefined, 'no fork yet');

  // Edit: the rewind dialog (no files changed, so one button), the text back in the composer, then sent changed.
  h.state.answer = (kind, prompt) => (kind === 'modal' && prompt.startsWith('Rewind') ? 'Rewind' : undefined);
  let mark = v.mark();
  v.send({ type: 'messageAction', action: 'edit', entryId: original.id });
  await until(() => v.since(mark).some((m) => m.type === 'composer'), 'the message back in the composer');
  await turnOn(v, 'Second question, edited.');
  const edited = userNamed('Second question, edited.');
  assert.ok(edited);
  assert.deepEqual(edited.branch, { index: 2, count: 2, previous: original.id }, 'the edited message is branch 2 of 2');
  assert.equal(branchOf('First question.'), undefined, 'the first message does not fork');
  await agrees('after edit & resend');

  // ‹ : the original branch, whole, with no dialog (a switch keeps the files and moves the conversation only).
  const asked = h.state.asked.length;
  await switchTo(original.id);
  assert.equal(h.state.asked.length, asked, 'switching asks nothing when no turn runs');
  assert.deepEqual(branchOf('Second question.'), { index: 1, count: 2, next: edited.id });
  assert.equal(userNamed('Second question, edited.'), undefined);
  assert.ok(
    shown().some((i) => i.kind === 'assistant' && i.markdown.startsWith('Answer to: Second question.')),
    'with its answer',
  );
  await agrees('after ‹');
  await turnOn(v, 'Third, on branch 1.');
  assert.deepEqual(lastRequestUsers(), ['First question.', 'Second question.', 'Third, on branch 1.'], 'the model continues branch 1');
  await agrees('a turn on branch 1');

  // › : back to the edited branch, its newest entry; the turn just made on branch 1 is on branch 1 only.
  await switchTo(edited.id);
  assert.deepEqual(branchOf('Second question, edited.'), { index: 2, count: 2, previous: original.id });
  assert.equal(userNamed('Third, on branch 1.'), undefined);
  await agrees('after ›');
  await turnOn(v, 'Third, on branch 2.');
  assert.deepEqual(lastRequestUsers(), ['First question.', 'Second question, edited.', 'Third, on branch 2.']);

  // ‹ again lands on branch 1's newest entry: its third message is back.
  await switchTo(original.id);
  assert.ok(userNamed('Third, on branch 1.'), "branch 1's newest turn");
  await agrees('back on branch 1');
  const users = sessionEntries().filter((e) => e.type === 'user').length;
  assert.equal(users, 5, 'every message is still in the chat file');

  // A switch to what does not start a branch (the edited message's own checkpoint) is refused with a notice; nothing moves.
  mark = v.mark();
  const leafMoves = sessionEntries().filter((e) => e.type === 'leaf').length;
  const checkpoint = sessionEntries().find((e) => e.type === 'checkpoint' && e.forEntryId === edited.id);
  v.send({ type: 'switchBranch', entryId: checkpoint?.id ?? 'x' });
  await until(() => v.since(mark).some((m) => m.type === 'notice'), 'the refusal');
  assert.match(JSON.stringify(v.since(mark).find((m) => m.type === 'notice')), /not the start of a branch/);
  assert.equal(sessionEntries().filter((e) => e.type === 'leaf').length, leafMoves);
});

test('a switch while a compaction runs asks to stop first: declining changes nothing, stopping leaves no late capsule', async () => {
  const original = userNamed('Second question.');
  const next = original?.branch?.next;
  assert.ok(original && next, 'branch 1 of 2 is shown, with a next branch');
  server.onMatch({ summary: true }, { hang: true }, { times: 1 });
  v.send({ type: 'send', text: '/compact the findings', clientId: 'c_compact' });
  await until(
    () => server.chatRequests.some((r) => isSummaryRequest(r.body as never)) && server.chatRequests.length > 0,
    'the compaction to be waiting on its summary',
  );
  const capsulesBefore = sessionEntries().filter((e) => e.type === 'capsule').length;

  h.state.answer = () => undefined;
  const asked = h.state.asked.length;
  v.send({ type: 'switchBranch', entryId: next });
  await until(() => h.state.asked.length > asked, 'the question');
  assert.match(h.state.asked.at(-1)?.prompt ?? '', /A turn is running\. Stop it and switch branches\?/);
  // The view reloaded after the declined question (the host has handled it) still shows branch 1, the compaction still waiting.
  await agrees('after a declined switch');
  assert.ok(userNamed('Second question.'), 'declined: still on branch 1');
  assert.ok(
    server.chatRequests.some((r) => isSummaryRequest(r.body as never) && !r.aborted),
    'declined: the compaction was not stopped',
  );

  h.state.answer = (kind, prompt) => (kind === 'modal' && prompt.startsWith('A turn is running') ? 'Stop and Continue' : undefined);
  const mark = v.mark();
  await switchTo(next);
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy) || lastOf(v.messages(), 'busy')?.busy === false, 'the compaction to stop');
  // Give the cancelled compaction every chance to append late, then look.
  await turnOn(v, 'After the switch.');
  assert.equal(sessionEntries().filter((e) => e.type === 'capsule').length, capsulesBefore, 'no capsule was appended');
  assert.ok(!v.since(mark).some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'compaction')), 'no card arrived');
  assert.deepEqual(
    lastRequestUsers(),
    ['First question.', 'Second question, edited.', 'Third, on branch 2.', 'After the switch.'],
    'the turn continued the branch switched to',
  );
  await agrees('after a switch that stopped a compaction');
});
