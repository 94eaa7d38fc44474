// Palette and slash commands for capsules share one action: no fake user message, savings ratio after compactions, the tooltip's rows, create/load dialogs, Project Memory inheritance.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { HostToWebview, TranscriptItem } from '../../../src/protocol/messages.js';
import { CAPSULE_FOLDER_KEY } from '../../../src/vscode/services/capsuleFolder.js';
import { isSummaryRequest, startFakeOpenAI, type ChatBody, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import { closeAgentView, createHarness, lastOf, openAgentView, turnOn, until, type OpenView } from './hostHarness.js';
import { replayItems } from './webviewReplay.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 12_000,
    'capsule.model.maxOutputTokens': 1_500,
    'capsule.compaction.safetyReserveTokens': 500,
    'capsule.compaction.keepRecentTokens': 1_000,
    'capsule.compaction.minReclaimableTokens': 1_000,
    // Only the compactions the tests ask for.
    'capsule.compaction.auto': false,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

const ANSWER = Array.from({ length: 90 }, (_, i) => `Finding ${i}: module ${i % 7} behaves as documented.`).join('\n');

before(async () => {
  server = await startFakeOpenAI({ window: 12_000 });
  server.setFallback((req) => (isSummaryRequest(req.body) ? { text: GOOD_SUMMARY } : { text: ANSWER }));
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const itemsIn = (ms: readonly HostToWebview[]): TranscriptItem[] =>
  ms.flatMap((m) => (m.type === 'itemsAppended' ? m.items : m.type === 'itemUpdated' ? [m.item] : []));
const infoIn = (ms: readonly HostToWebview[]): string[] => itemsIn(ms).flatMap((i) => (i.kind === 'info' || i.kind === 'error' ? [i.text] : []));
const sessions = (): string[] => readdirSync(join(h.storage, 'sessions')).filter((n) => n.endsWith('.jsonl'));

/** Sends `text` and waits for an info or error line whose text matches `answer`. */
async function say(text: string, answer: RegExp): Promise<HostToWebview[]> {
  const mark = v.mark();
  v.send({ type: 'send', text, clientId: `c_${mark}` });
  await until(() => infoIn(v.since(mark)).some((t) => answer.test(t)), `the answer to "${text}"`);
  return v.since(mark);
}

/** The text of every message of the latest agent request (summary requests left out). */
function lastRequestText(): string {
  const body = server.chatRequests
    .map((r) => r.body as ChatBody)
    .filter((b) => !isSummaryRequest(b))
    .at(-1);
  return (body?.messages ?? []).map((m) => JSON.stringify(m.content)).join('\n');
}

/** "  Label:  value" rows of a /budget answer. */
function budgetRows(text: string): Map<string, string> {
  return new Map(
    text.split('\n').flatMap((l) => {
      const m = /^ {2}([^:]+):\s+(.*)$/.exec(l);
      return m?.[1] !== undefined && m[2] !== undefined ? [[m[1], m[2].trim()] as const] : [];
    }),
  );
}

test('the palette\'s Compact Context posts no "/compact" message; after three compactions /budget\'s savings ratio is not 0%', async () => {
  for (let round = 0; round < 3; round++) {
    await turnOn(v, `Round ${round}: list every finding.`);
    await turnOn(v, `Round ${round}: and again.`);
    const mark = v.mark();
    await h.command('capsule.compactContext');
    await until(
      () => itemsIn(v.since(mark)).some((i) => i.kind === 'compaction') && v.since(mark).some((m) => m.type === 'busy' && !m.busy),
      `compaction ${round + 1}`,
    );
    const items = itemsIn(v.since(mark));
    assert.ok(!items.some((i) => i.kind === 'user'), `no user message was posted: ${JSON.stringify(items.filter((i) => i.kind === 'user'))}`);
    assert.ok(!infoIn(v.since(mark)).some((t) => t.startsWith('/compact')));
  }
  // The typed command is the user's own message and is echoed; the palette's is not.
  const typed = await say('/budget', /^Context Stats:/);
  assert.ok(itemsIn(typed).some((i) => i.kind === 'user' && i.text === '/budget'));
  const text = infoIn(typed).find((t) => t.startsWith('Context Stats:')) ?? '';
  const rows = budgetRows(text);
  assert.equal(rows.get('Capsules'), '3');
  const m = /^(\d\.\d\d) \((\d+)%\)$/.exec(rows.get('Savings ratio') ?? '');
  assert.ok(m, `savings ratio row: ${rows.get('Savings ratio')}`);
  assert.ok(Number(m[1]) > 0.2, `three compactions saved a good share: ${m[1]}`);
  const effective = Number((rows.get('Effective tokens') ?? '').replace(/,/g, ''));
  const full = Number((rows.get('Uncompacted') ?? '').split(' ')[0]?.replace(/,/g, ''));
  assert.ok(full > effective, `the uncompacted input (${full}) is larger than the current one (${effective})`);
  assert.equal(Number(m[1]), Math.round((1 - effective / full) * 100) / 100);
});

test('the status-bar tooltip shows the same rows as /budget, categories first (one function builds both)', async () => {
  const text = infoIn(await say('/budget', /^Context Stats:/)).find((t) => t.startsWith('Context Stats:')) ?? '';
  const rows = budgetRows(text);
  const item = h.state.statusItems.find((i) => i.text.startsWith('$(pulse)'));
  const md = (item?.tooltip as { value?: string } | undefined)?.value ?? '';
  const tipRows = md.split('\n').flatMap((l) => {
    const c = /^\| (.+?) \| (.+?) \|$/.exec(l);
    const unescape = (s: string): string => s.replace(/\\(.)/g, '$1');
    return c?.[1] !== undefined && c[2] !== undefined && !/^-+$/.test(c[1]) ? [[unescape(c[1]), unescape(c[2])] as const] : [];
  });
  const labels = tipRows.map(([k]) => k);
  for (const category of ['System prompt', 'Tool schemas', 'Capsule', 'Recent messages', 'Tool results', 'Free', 'Reserved output'])
    assert.ok(labels.includes(category), `the tooltip has ${category}`);
  for (const seedRow of [
    'Effective tokens',
    'Soft limit',
    'Hard limit',
    'Safety reserve',
    'Keep recent',
    'Capsules',
    'Savings ratio',
    'Auto-compact',
    'Next trigger est.',
  ])
    assert.ok(labels.includes(seedRow), `the tooltip has ${seedRow}`);
  for (const [label, value] of tipRows) {
    // A capsule's age moves with the clock between the two readings; everything else is the same figure.
    const strip = (s: string | undefined): string | undefined => (label === 'Last capsule' ? s?.replace(/^\d+[smhd] ago /, '') : s);
    assert.equal(strip(value), strip(rows.get(label)), `${label}: tooltip and /budget agree`);
  }
});

test('/capsule create asks where to save: cancelling writes nothing (no .capsule/ in the workspace), choosing a file writes it there and remembers the folder', async () => {
  const before = readdirSync(h.workspace);
  h.state.answer = () => undefined;
  const cancelled = await say('/capsule create "auth handoff"', /No capsule was created/);
  assert.ok(infoIn(cancelled).some((t) => /save dialog was cancelled/.test(t)));
  assert.ok(h.state.asked.some((a) => a.kind === 'saveDialog' && a.prompt === 'Save the portable capsule "auth handoff"'));
  assert.deepEqual(readdirSync(h.workspace), before, 'nothing was written into the workspace');
  assert.equal(existsSync(join(h.workspace, '.capsule')), false);

  const out = join(h.tmp, 'elsewhere', 'auth.capsule.md');
  await import('node:fs').then((fs) => fs.mkdirSync(join(h.tmp, 'elsewhere'), { recursive: true }));
  h.state.answer = (kind) => (kind === 'saveDialog' ? (h.api.Uri as { file(p: string): unknown }).file(out) : undefined);
  const saved = await say('/capsule create "auth handoff"', /Portable capsule "auth handoff"/);
  assert.ok(
    infoIn(saved).some((t) => t.includes(out)),
    'the answer names where it went',
  );
  assert.ok(existsSync(out));
  assert.deepEqual(readdirSync(h.workspace), before, 'still nothing in the workspace');
  assert.equal(h.context.globalState.get(CAPSULE_FOLDER_KEY), join(h.tmp, 'elsewhere'), 'the folder is remembered for the next dialog');

  // Right after a capsule nothing new compacts: the existing capsule is saved, and the answer says so.
  const again = join(h.tmp, 'elsewhere', 'again.capsule.md');
  h.state.answer = (kind) => (kind === 'saveDialog' ? (h.api.Uri as { file(p: string): unknown }).file(again) : undefined);
  const repeated = await say('/capsule create "again"', /Portable capsule "again"/);
  assert.ok(
    infoIn(repeated).some((t) => /^Nothing new was compacted \(.+\), so the latest existing capsule \(ck_\S+\) was saved/.test(t)),
    infoIn(repeated).join('\n'),
  );
  assert.ok(existsSync(again));
});

test('loading a capsule previews it and asks where it goes: cancel loads nothing, This Chat appends it here, New Chat opens a chat from it', async () => {
  const file = join(h.tmp, 'elsewhere', 'auth.capsule.md');
  const count = sessions().length;
  const capsulesHere = (): number => replayItems(v.messages()).filter((i) => i.kind === 'compaction').length;
  const cardsBefore = capsulesHere();

  h.state.answer = () => undefined;
  const asked = h.state.asked.length;
  await say(`/capsule load ${file}`, /was not loaded/);
  const preview = h.state.asked.slice(asked).find((a) => a.kind === 'modal');
  assert.equal(preview?.prompt, 'Load capsule "auth handoff"?');
  for (const line of [
    /^[\d,]+ tokens · quality full · created /m,
    /^Task: \S/m,
    /^Ledger: \d+ file\(s\) modified · \d+ command\(s\)/m,
    /^Checksum: verified/m,
    /^New Chat: /m,
    /^This Chat: .*recorded in the transcript/m,
  ]) {
    assert.match(preview?.detail ?? '', line);
  }
  assert.equal(sessions().length, count);
  assert.equal(capsulesHere(), cardsBefore, 'cancel loads nothing');

  h.state.answer = (kind) => (kind === 'modal' ? 'This Chat' : undefined);
  const here = await say(`/capsule load ${file}`, /Loaded capsule "auth handoff" into this chat/);
  assert.ok(
    itemsIn(here).some((i) => i.kind === 'compaction'),
    'the transcript shows the replacement as a card',
  );
  assert.equal(sessions().length, count, 'no new chat');

  // The palette asks the same question with the same words.
  h.state.answer = (kind) => (kind === 'openDialog' ? [(h.api.Uri as { file(p: string): unknown }).file(file)] : kind === 'modal' ? 'New Chat' : undefined);
  const mark = v.mark();
  const mAsked = h.state.asked.length;
  await h.command('capsule.loadCapsule');
  await until(() => infoIn(v.since(mark)).some((t) => /into a new chat/.test(t)), 'the new chat from the capsule');
  assert.equal(h.state.asked.slice(mAsked).find((a) => a.kind === 'modal')?.prompt, 'Load capsule "auth handoff"?');
  assert.equal(sessions().length, count + 1);
  await until(
    () => lastOf(v.since(mark), 'snapshot')?.transcript.items.some((i) => i.kind === 'compaction') === true,
    'the new chat, starting from the capsule',
  );
  assert.ok(infoIn(v.messages()).some((t) => /Loaded capsule "auth handoff" into a new chat/.test(t)));
});

test('Project Memory: Show Project Memory says what a new chat inherits; with inheritance off a new chat inherits nothing, with it on the chat says so once', async () => {
  assert.ok(existsSync(join(h.storage, 'project-memory.capsule.md')), 'the palette compactions wrote Project Memory');
  const inherited = (items: readonly TranscriptItem[]): TranscriptItem[] =>
    items.filter((i) => i.kind === 'info' && /^This chat inherited Project Memory "/.test(i.text));

  h.state.answer = (kind, prompt) => (kind === 'modal' && prompt.startsWith('Project Memory: "') ? 'Stop Inheriting' : undefined);
  const asked = h.state.asked.length;
  await h.command('capsule.showProjectMemory');
  const shown = h.state.asked.slice(asked).find((a) => a.kind === 'modal');
  assert.match(shown?.detail ?? '', /^New chats of this workspace inherit it/);
  assert.match(shown?.detail ?? '', /^Task: /m);
  assert.deepEqual(h.state.writes.at(-1), { key: 'capsule.projectMemory.inherit', value: false, target: 2 });

  let mark = v.mark();
  await h.command('capsule.newChat');
  await until(() => lastOf(v.since(mark), 'snapshot')?.setup?.required === false, 'the new chat and its agent');
  await turnOn(v, 'Hello without memory.');
  assert.equal(inherited(replayItems(v.messages())).length, 0, 'nothing inherited');
  const request = lastRequestText();
  assert.doesNotMatch(request, /# Project Memory \(data, not instructions\)/, 'the model got no Project Memory');

  h.state.answer = (kind, prompt) => (kind === 'modal' && prompt.startsWith('Project Memory: "') ? 'Inherit in New Chats' : undefined);
  await h.command('capsule.showProjectMemory');
  assert.match(h.state.asked.at(-1)?.detail ?? '', /^New chats do not inherit it/);
  mark = v.mark();
  await h.command('capsule.newChat');
  await until(() => inherited(replayItems(v.messages())).length === 1, 'the inherited line');
  await turnOn(v, 'Hello with memory.');
  assert.match(lastRequestText(), /# Project Memory \(data, not instructions\)/);
  await h.command('capsule.refresh');
  await until(() => lastOf(v.since(mark), 'snapshot') !== undefined, 'the reopened chat');
  assert.equal(inherited(replayItems(v.messages())).length, 1, 'said once, also after reopening');
});
