// End to end in code-server: a workspace's .mcp.json server is approved in VS Code's dialog, starts with the chat, is listed in the setup panel, and the model's call to it is approved on a card and its result shows in the chat.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { isSummaryRequest, type ChatBody, type ChatRequestView, type FakeOpenAIServer, type ScriptedReply } from '../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../unit/compaction/harness.js';
import { screenshot } from './browser.js';
import { NOT_STARTED, assertNoCapsuleErrors, startE2e, step, stopE2e } from './session.js';
import { ChatView, waitUntil } from './chatView.js';
import { openWorkbenchWithCapsule, widenSideBar } from './workbench.js';

const MODEL = 'fake-model';
/** A small stdio MCP server from the unit tests (the SDK's own Server): its `echo` tool answers "echo: <text>". */
const SERVER = resolve(__dirname, '..', 'unit', 'mcp', 'fixtures', 'hostileServer.mjs');
const MCP_JSON = JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [SERVER, 'basic'] } } }, null, 2);

function responder(req: ChatRequestView): ScriptedReply {
  const body = req.body as ChatBody;
  if (isSummaryRequest(body)) return { text: GOOD_SUMMARY };
  const last = body.messages[body.messages.length - 1];
  if (last?.role === 'tool') return { text: `The server said: ${String(last.content).slice(0, 80)}` };
  return { toolCalls: [{ name: 'mcp__notes__echo', arguments: { text: 'MCP-E2E-7421' } }] };
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
    files: { 'README.md': '# sample\n', '.mcp.json': MCP_JSON },
  }));
});

after(stopE2e);

function toolResults(f: FakeOpenAIServer): string[] {
  return f.chatRequests.flatMap((r) => (r.body as ChatBody).messages.filter((m) => m.role === 'tool').map((m) => String(m.content)));
}

test('a workspace MCP server: approved once, listed in the setup panel, its call approved on a card and its result in the chat', {
  timeout: 300_000,
}, async () => {
  const s = server;
  const f = fake;
  assert.ok(s && f);
  const chat = new ChatView(page);
  await step('21-01-approve-server', async () => {
    await openWorkbenchWithCapsule(page, s.url);
    // The workspace's .mcp.json runs a program: VS Code's dialog asks before it starts, naming the command.
    // It comes when the chat opens its agent, after the extension host has started: a slow machine takes a while.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 120_000 });
    const asked = (await dialog.textContent()) ?? '';
    await page.waitForTimeout(1000); // the dialog paints a moment after it is in the DOM
    await screenshot(page, '21-01a-approve-workspace-server');
    await dialog
      .locator('.monaco-button', { hasText: /^Allow$/ })
      .first()
      .click();
    await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
    assert.match(asked, /\.mcp\.json wants to start the MCP server "notes"/);
    assert.ok(asked.includes(SERVER), asked);
    await chat.ready(60_000);
    await widenSideBar(page, 160);
  });

  await step('21-02-setup-panel-lists-it', async () => {
    await chat.frame.getByRole('button', { name: 'Provider setup' }).click();
    const row = chat.frame.locator('[data-mcp-server="notes"]');
    await row.locator('.mcp-status', { hasText: 'running' }).waitFor({ timeout: 60_000 });
    assert.match((await row.locator('.mcp-figures').textContent()) ?? '', /^7 tools · \d+ schema tokens · stdio · \.mcp\.json$/);
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, '21-02a-mcp-servers-panel');
    await chat.frame.getByRole('button', { name: 'Close provider setup' }).click();
  });

  await step('21-03-call-and-result', async () => {
    await chat.send('Ask the notes server to echo the marker');
    const card = chat.frame.locator('.approval-card.mcp');
    await card.waitFor({ timeout: 30_000 });
    assert.match((await card.textContent()) ?? '', /Call echo on MCP server notes/);
    await screenshot(page, '21-03a-mcp-approval-card');
    await card.getByRole('button', { name: 'Allow once' }).click();
    await waitUntil('the result to reach the model', () => toolResults(f).some((t) => t.includes('echo: MCP-E2E-7421')), 30_000);
    await chat.answer('The server said: echo: MCP-E2E-7421').waitFor({ timeout: 30_000 });
    await chat.idle();
    const tool = chat.frame.locator('details.tool', { hasText: 'mcp__notes__echo' }).last();
    await tool.locator('summary').click();
    await tool.locator('.tool-result', { hasText: 'echo: MCP-E2E-7421' }).waitFor({ timeout: 15_000 });
    assert.match((await tool.getAttribute('class')) ?? '', /status-ok/);
    await screenshot(page, '21-03b-mcp-call-in-chat');
    assertNoCapsuleErrors(s);
  });
});
