// End to end in code-server: approve an edit in VS Code's diff editor, always-allow a command prefix, deny with feedback, and a plan that survives compaction.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { renderPlanLines, type Plan } from '../../src/engine/compaction/taskPlan.js';
import { isSummaryRequest, type ChatBody, type ChatRequestView, type FakeOpenAIServer, type ScriptedReply } from '../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../unit/compaction/harness.js';
import { screenshot } from './browser.js';
import { NOT_STARTED, startE2e, step, stopE2e } from './session.js';
import { ChatView, waitUntil } from './chatView.js';
import { openWorkbenchWithCapsule, widenSideBar } from './workbench.js';

const MODEL = 'fake-model';
const PLAN: Plan = [
  { step: 'Read a.ts', status: 'done' },
  { step: 'Change the constant to 2', status: 'in_progress' },
  { step: 'Run the checks', status: 'pending' },
];

/** The scripted model: each user request names the tool call it answers with. */
function responder(req: ChatRequestView): ScriptedReply {
  const body = req.body as ChatBody;
  if (isSummaryRequest(body)) return { text: GOOD_SUMMARY };
  const last = body.messages[body.messages.length - 1];
  if (last?.role === 'tool') return { text: `Done with ${String(last.content).slice(0, 60)}` };
  const ask = String(last?.content ?? '');
  if (ask.startsWith('Plan')) return { toolCalls: [{ name: 'update_plan', arguments: { plan: PLAN } }] };
  if (ask.startsWith('Edit')) return { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.ts', oldText: 'value = 1', newText: 'value = 2' } }] };
  const run = /^Run: (.+)$/.exec(ask);
  if (run) return { toolCalls: [{ name: 'run_command', arguments: { command: run[1] ?? '' } }] };
  return { text: 'Noted.' };
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
      // A short chat must have something older than the kept tail for /compact to summarize.
      'capsule.compaction.keepRecentTokens': 300,
      'capsule.compaction.minReclaimableTokens': 100,
    }),
    files: { 'README.md': '# sample\n', 'a.ts': 'export const value = 1;\n' },
  }));
});

after(stopE2e);

function toolResults(f: FakeOpenAIServer): string[] {
  return f.chatRequests.flatMap((r) => (r.body as ChatBody).messages.filter((m) => m.role === 'tool').map((m) => String(m.content)));
}

test('approvals in the diff editor and inline cards, and the plan carried exactly across a compaction', { timeout: 300_000 }, async () => {
  const s = server;
  const f = fake;
  assert.ok(s && f);
  const chat = new ChatView(page);
  await step('15-01-open', async () => {
    await openWorkbenchWithCapsule(page, s.url);
    await chat.ready(60_000);
    await widenSideBar(page, 120);
  });

  await step('15-02-edit-in-diff-editor', async () => {
    await chat.send('Edit a.ts so the value is 2');
    await chat.frame.locator('.approval-card.write').waitFor({ timeout: 30_000 });
    const tab = page.locator('.tab', { hasText: /current ↔ proposed/ });
    await tab.first().waitFor({ timeout: 30_000 });
    await screenshot(page, '15-02a-diff-editor-open');
    await page.locator('.editor-actions [aria-label^="Accept Proposed Edit"]').first().click();
    await waitUntil('the edit on disk', () => readFileSync(join(s.workspace, 'a.ts'), 'utf8') === 'export const value = 2;\n', 30_000);
    await chat.idle();
  });

  await step('15-03-always-allow-prefix', async () => {
    await chat.send('Run: echo first-run');
    const card = chat.frame.locator('.approval-card.command');
    await card.waitFor({ timeout: 30_000 });
    await screenshot(page, '15-03a-command-card');
    await card.getByRole('button', { name: 'Always allow…' }).click();
    // The rule offered is the command's name, editable; it is kept in the user's settings, not the workspace's.
    assert.equal(await card.getByLabel('Allow commands starting with').inputValue(), 'echo');
    await screenshot(page, '15-03b-always-allow-rule');
    await card.getByRole('button', { name: 'Save rule and run' }).click();
    await chat.idle();
    const settings = JSON.parse(readFileSync(join(s.root, 'user', 'User', 'settings.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(settings['capsule.approvals.allowedCommands'], ['echo']);
    const before = toolResults(f).length;
    await chat.send('Run: echo second-run');
    await waitUntil(
      'the next echo to run without a card',
      () =>
        toolResults(f)
          .slice(before)
          .some((t) => t.includes('second-run')),
      30_000,
    );
    await chat.idle();
  });

  await step('15-04-deny-with-feedback', async () => {
    await chat.send('Run: echo first-run; touch evil.txt');
    const card = chat.frame.locator('.approval-card.command');
    await card.waitFor({ timeout: 30_000 });
    await card.getByRole('button', { name: 'Deny with feedback' }).click();
    await card.locator('textarea').fill('Do not chain commands; run them one at a time.');
    await screenshot(page, '15-04a-feedback');
    await card.locator('textarea').press('Enter');
    await waitUntil('the feedback to reach the model', () => toolResults(f).some((t) => t.includes('Do not chain commands; run them one at a time.')), 30_000);
    await chat.idle();
  });

  await step('15-05-plan-survives-compaction', async () => {
    await chat.send('Plan the change');
    await chat.frame.locator('.plan:not(.hidden)').waitFor({ timeout: 30_000 });
    await chat.idle();
    // Enough history that a capsule is smaller than what it replaces (a user compaction of a few hundred tokens is skipped).
    for (const topic of ['parser', 'lexer', 'printer']) {
      await chat.send(`Notes on the ${topic}: ${`the ${topic} keeps its state in one place and reports errors with positions. `.repeat(40)}`);
      await chat.idle();
    }
    await chat.send('/compact');
    // The first Enter may only pick "/compact" in the completion popup; the second sends it.
    if ((await chat.composer.inputValue()).trim() !== '') await chat.composer.press('Enter');
    await chat.cards.first().waitFor({ timeout: 60_000 });
    await chat.idle();
    const before = f.chatRequests.length;
    await chat.send('Where are we?');
    // Earlier answers also read "Noted.", so wait for the request itself rather than for an answer on screen.
    const after = (): typeof f.chatRequests => f.chatRequests.slice(before).filter((r) => !isSummaryRequest(r.body as ChatBody));
    await waitUntil('the request after the capsule', () => after().length > 0, 30_000);
    await chat.idle();
    const next = after()[0];
    assert.ok(next !== undefined, 'a request after the capsule');
    const capsule = (next.body as ChatBody).messages.find((m) => m.role === 'assistant' && String(m.content).includes('## Ledger'));
    assert.ok(capsule !== undefined, 'the request carries the capsule');
    for (const line of renderPlanLines(PLAN)) assert.ok(String(capsule.content).includes(line), `the capsule carries "${line}" exactly`);
  });
});
