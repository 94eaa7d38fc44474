// End to end in code-server: a task call shows its subagent's card, which opens on its figures and its own transcript.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isSummaryRequest, type ChatBody, type ChatRequestView, type ScriptedReply } from '../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../unit/compaction/harness.js';
import { screenshot } from './browser.js';
import { ChatView, waitUntil } from './chatView.js';
import { NOT_STARTED, assertNoCapsuleErrors, startE2e, step, stopE2e } from './session.js';
import { openWorkbenchWithCapsule, widenSideBar } from './workbench.js';

const MODEL = 'fake-model';

/** The scripted model: the parent delegates once; the subagent (told apart by its system prompt) reads a.ts, then reports. */
function responder(req: ChatRequestView): ScriptedReply {
  const body = req.body as ChatBody;
  if (isSummaryRequest(body)) return { text: GOOD_SUMMARY };
  const system = body.messages.find((m) => m.role === 'system');
  const child = typeof system?.content === 'string' && system.content.includes('You are a subagent');
  const last = body.messages[body.messages.length - 1];
  if (child)
    return last?.role === 'tool' ? { text: 'Subagent report: a.ts exports value = 1.' } : { toolCalls: [{ name: 'read_file', arguments: { path: 'a.ts' } }] };
  if (last?.role === 'tool') return { text: 'Parent: the subagent reported back.' };
  return { toolCalls: [{ name: 'task', arguments: { description: 'explore a.ts', prompt: 'SUBAGENT-PROMPT: read a.ts and say what it exports' } }] };
}

let { fake, server, page } = NOT_STARTED;

before(async () => {
  ({ fake, server, page } = await startE2e({
    fake: { window: 64_000, models: [{ id: MODEL, contextLength: 64_000 }], fallback: responder },
    settings: (url) => ({
      'capsule.provider.baseUrl': url,
      'capsule.model.id': MODEL,
      'capsule.model.contextWindow': 64_000,
      'capsule.model.maxOutputTokens': 4000,
    }),
    files: { 'README.md': '# sample\n', 'a.ts': 'export const value = 1;\n' },
  }));
});

after(stopE2e);

test('a task call shows a subagent card: done, its figures, and its transcript on demand', { timeout: 300_000 }, async () => {
  const s = server;
  const f = fake;
  assert.ok(s && f);
  const chat = new ChatView(page);
  await step('23-01-open', async () => {
    await openWorkbenchWithCapsule(page, s.url);
    await chat.ready(60_000);
    await widenSideBar(page, 120);
  });
  const card = chat.frame.locator('.item-tool details.subagent');
  await step('23-02-card', async () => {
    await chat.send('Delegate the reading of a.ts');
    await chat.answer('Parent: the subagent reported back.').waitFor({ timeout: 60_000 });
    await chat.idle();
    await chat.frame.locator('.item-tool .subagent-state-done').waitFor({ timeout: 30_000 });
    assert.match((await card.locator(':scope > summary').textContent()) ?? '', /explore a\.ts.*done/);
  });
  await step('23-03-open-card', async () => {
    await card.locator(':scope > summary').click();
    assert.match((await card.locator('.subagent-figures').textContent()) ?? '', /2 requests · [\d,]+ tokens · context [\d,]+ \/ 64,000/);
    await card.locator('.subagent-transcript-box > summary').click();
    await card.locator('.subagent-line-user', { hasText: 'SUBAGENT-PROMPT' }).waitFor({ timeout: 30_000 });
    await card.locator('.subagent-line-tool', { hasText: 'read_file' }).waitFor({ timeout: 10_000 });
    await card.locator('.subagent-line-assistant', { hasText: 'Subagent report' }).waitFor({ timeout: 10_000 });
    await screenshot(page, '23-03-subagent-card-open');
  });
  // The chat's own messages never include the subagent's: its prompt is only in the card's transcript.
  await waitUntil(
    'the chat list without the subagent prompt outside the card',
    async () => (await chat.frame.locator('.item-user', { hasText: 'SUBAGENT-PROMPT' }).count()) === 0,
    5_000,
  );
  assertNoCapsuleErrors(s);
});
