// End to end in code-server: a tool another extension registers (vscode.lm.registerTool) is offered as mcp__vscode__<tool>, listed in the setup panel under the server "vscode", approved on the MCP card and called through VS Code.
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
/** A tiny extension that contributes and registers the tool `e2e_marker_tool`, installed next to Capsule. */
const FIXTURE = resolve(__dirname, 'fixtures', 'lmToolExtension');
const TOOL = 'mcp__vscode__e2e_marker_tool';

function responder(req: ChatRequestView): ScriptedReply {
  const body = req.body as ChatBody;
  if (isSummaryRequest(body)) return { text: GOOD_SUMMARY };
  const last = body.messages[body.messages.length - 1];
  if (last?.role === 'tool') return { text: `The tool said: ${String(last.content).slice(0, 80)}` };
  return { toolCalls: [{ name: TOOL, arguments: { word: 'capsule' } }] };
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
    files: { 'README.md': '# sample\n' },
    extensions: [FIXTURE],
  }));
});

after(stopE2e);

function toolResults(f: FakeOpenAIServer): string[] {
  return f.chatRequests.flatMap((r) => (r.body as ChatBody).messages.filter((m) => m.role === 'tool').map((m) => String(m.content)));
}

test("another extension's language model tool: offered as the server vscode, approved on the MCP card, called through VS Code", {
  timeout: 300_000,
}, async () => {
  const s = server;
  const f = fake;
  assert.ok(s && f);
  const chat = new ChatView(page);
  await step('21-11-open', async () => {
    await openWorkbenchWithCapsule(page, s.url);
    await chat.ready(120_000);
    await widenSideBar(page, 160);
  });

  await step('21-12-call-through-vscode', async () => {
    await chat.send('Get the marker for capsule');
    const card = chat.frame.locator('.approval-card.mcp');
    await card.waitFor({ timeout: 60_000 });
    assert.match((await card.textContent()) ?? '', /Call e2e_marker_tool on MCP server vscode/);
    await screenshot(page, '21-12a-vscode-tool-card');
    await card.getByRole('button', { name: 'Allow once' }).click();
    await waitUntil('the result to reach the model', () => toolResults(f).some((t) => t.includes('marker for capsule: LM-TOOL-5150')), 60_000);
    await chat.answer('The tool said: marker for capsule: LM-TOOL-5150').waitFor({ timeout: 30_000 });
    await chat.idle();
    const tools = ((f.chatRequests[0]?.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);
    assert.ok(tools.includes(TOOL), tools.join(', '));
    assert.equal(
      tools.some((t) => t.startsWith('mcp__vscode__copilot_') || t.startsWith('mcp__vscode__vscode_')),
      false,
      'no internal tool of VS Code or Copilot',
    );
    await screenshot(page, '21-12b-vscode-tool-in-chat');
  });

  await step('21-13-setup-panel-lists-vscode', async () => {
    await chat.frame.getByRole('button', { name: 'Provider setup' }).click();
    const row = chat.frame.locator('[data-mcp-server="vscode"]');
    await row.locator('.mcp-status', { hasText: 'running' }).waitFor({ timeout: 30_000 });
    assert.match((await row.locator('.mcp-figures').textContent()) ?? '', /\d+ tools? · \d+ schema tokens · VS Code language model tools$/);
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, '21-13a-vscode-server-row');
    assertNoCapsuleErrors(s);
  });
});
