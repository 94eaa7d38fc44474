// Always-allow rules the user shapes on the card (name first, any first words, user or workspace), the list of rules with its ×, and the setup card closing on a passed check.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setup, snapshot } from '../unit/protocol/samples.js';
import { browserForFile, ofType, scenario } from './harness.js';

const browser = browserForFile();

const CARD = {
  id: 'ap_1',
  kind: 'command' as const,
  title: 'Run `echo step-203` in the workspace root',
  command: 'echo step-203',
  cwd: 'the workspace root',
  rule: 'echo',
  ruleChoices: ['echo', 'echo step-203'],
};

test('"Always allow…" offers the command name, takes a picked or typed prefix, refuses what is not one, and keeps it in user settings unless asked', async () => {
  await scenario(
    browser,
    'always-allow-editor',
    async (h) => {
      await h.send({ ...snapshot, approvals: [CARD] });
      await h.page.locator('[data-approval="ap_1"] button', { hasText: 'Always allow…' }).click();
      const input = h.page.getByLabel('Allow commands starting with');
      assert.equal(await input.inputValue(), 'echo');
      const save = h.page.locator('[data-approval="ap_1"] button', { hasText: 'Save rule and run' });
      await input.fill('echo step-2');
      assert.equal(await save.isDisabled(), true, 'a word cut in half is not a prefix of whole words');
      assert.match((await h.page.locator('.rule-help').textContent()) ?? '', /must be how this command starts/);
      await input.fill('echo; rm');
      assert.equal(await save.isDisabled(), true);
      assert.match((await h.page.locator('.rule-help').textContent()) ?? '', /plain words/);
      await h.page.locator('[data-approval="ap_1"] .chip-button', { hasText: 'echo step-203' }).click();
      assert.equal(await input.inputValue(), 'echo step-203', 'a chip picks one of the first-words prefixes');
      await input.fill('echo');
      await h.screenshot('always-allow-editor');
      await save.click();
      await h.send({ ...snapshot, approvals: [{ ...CARD, id: 'ap_2' }] });
      await h.page.locator('[data-approval="ap_2"] button', { hasText: 'Always allow…' }).click();
      await h.page.getByLabel('Only in this workspace').check();
      await h.page.getByLabel('Allow commands starting with').press('Enter');
      assert.deepEqual(
        (await ofType(h, 'approval')).map((m) => [m.id, m.choice, m.rule, m.scope]),
        [
          ['ap_1', 'allowAlways', 'echo', 'user'],
          ['ap_2', 'allowAlways', 'echo', 'workspace'],
        ],
      );
    },
    { width: 292, height: 500 },
  );
});

test('the rules in force are listed in the setup panel with where they are kept, and × removes one', async () => {
  await scenario(
    browser,
    'always-allow-list',
    async (h) => {
      await h.send(snapshot);
      await h.send({
        type: 'approvals',
        approvals: [],
        allowRules: [
          { rule: 'echo', scope: 'user' },
          { rule: 'npm run build', scope: 'workspace' },
        ],
      });
      await h.page.getByRole('button', { name: 'Provider setup' }).click();
      const list = h.page.getByRole('list', { name: 'Always-allowed commands' });
      assert.deepEqual(await list.locator('li').allTextContents(), ['echouser', 'npm run buildworkspace']);
      await list.getByRole('button', { name: 'Stop allowing npm run build (this workspace)' }).click();
      assert.deepEqual(
        (await ofType(h, 'removeAllowRule')).map((m) => m.rule),
        [{ rule: 'npm run build', scope: 'workspace' }],
      );
      await h.send({ type: 'approvals', approvals: [], allowRules: [{ rule: 'echo', scope: 'user' }] });
      await h.until("document.querySelectorAll('.rule-list li').length === 1", 'the list to follow');
      await h.page.locator('.rules').scrollIntoViewIfNeeded();
      await h.screenshot('always-allow-list');
    },
    { width: 292, height: 600 },
  );
});

test('Save in the setup panel: the panel waits for the check, closes itself when it passed and says so on one line; a warning keeps it open', async () => {
  await scenario(
    browser,
    'setup-closes',
    async (h) => {
      await h.send(snapshot);
      await h.page.getByRole('button', { name: 'Provider setup' }).click();
      await h.page.getByLabel('OpenAI-compatible endpoint').check();
      await h.page.getByRole('button', { name: 'Save' }).click();
      assert.equal((await ofType(h, 'checkProvider')).length, 1);
      const open = (): Promise<boolean> => h.value("!document.querySelector('.setup').classList.contains('hidden')");
      await h.send({ type: 'setup', setup: { ...setup, required: false, check: { status: 'checking', summary: 'Checking 127.0.0.1:11434…' } } });
      assert.equal(await open(), true, 'open while checking');
      await h.send({
        type: 'setup',
        setup: { ...setup, required: false, check: { status: 'warning', summary: 'It answers, but does not report the context window.' } },
      });
      assert.equal(await open(), true, 'a warning stays in view');
      await h.page.getByRole('button', { name: 'Save' }).click();
      await h.send({
        type: 'setup',
        setup: { ...setup, required: false, check: { status: 'ok', summary: '127.0.0.1:11434 answers: "qwen" with a 32k window.' } },
      });
      await h.until("document.querySelector('.setup').classList.contains('hidden')", 'the panel to close');
      assert.match(await h.value<string>("document.querySelector('.banners').textContent"), /answers: "qwen" with a 32k window/);
      // The host says it is idle after the save (a reconnect): the line about the endpoint stays.
      await h.send({ type: 'busy', busy: false });
      assert.match(
        await h.value<string>("document.querySelector('.banners').textContent"),
        /answers: "qwen" with a 32k window/,
        'still said after an idle message',
      );
      // The chat reopens on the new endpoint (a snapshot): the line stays too.
      await h.send(snapshot);
      assert.match(
        await h.value<string>("document.querySelector('.banners').textContent"),
        /answers: "qwen" with a 32k window/,
        'still said after the snapshot',
      );
      await h.screenshot('setup-closed-after-check');
    },
    { width: 292, height: 600 },
  );
});

test('an MCP call card shows the tool and its arguments and offers allow once, always this tool, deny and deny with feedback — no command rule editor', async () => {
  const MCP = {
    id: 'ap_m',
    kind: 'mcp' as const,
    title: 'Call echo on MCP server h',
    server: 'h',
    tool: 'echo',
    args: '{\n  "text": "one"\n}',
    rule: 'mcp__h__echo',
  };
  await scenario(
    browser,
    'mcp-approval-card',
    async (h) => {
      await h.send({ ...snapshot, approvals: [MCP, { ...MCP, id: 'ap_n' }] });
      const card = h.page.locator('[data-approval="ap_m"]');
      assert.match((await card.locator('.approval-title').textContent()) ?? '', /Call echo on MCP server h/);
      assert.equal(await card.getByLabel('Arguments').textContent(), '{\n  "text": "one"\n}');
      assert.deepEqual(await card.locator('.approval-buttons button').allTextContents(), [
        'Allow once',
        'Always allow this tool',
        'Deny',
        'Deny with feedback',
      ]);
      await h.screenshot('mcp-approval-card');
      await card.getByRole('button', { name: 'Always allow this tool' }).click();
      const other = h.page.locator('[data-approval="ap_n"]');
      await other.getByRole('button', { name: 'Deny with feedback' }).click();
      await other.getByLabel('What should the agent do instead?').fill('not now');
      await other.getByRole('button', { name: 'Send feedback' }).click();
      assert.equal(await h.page.locator('.rule-input').count(), 0, 'no rule editor opened');
      assert.deepEqual(
        (await ofType(h, 'approval')).map((m) => [m.id, m.choice, m.rule, m.feedback]),
        [
          ['ap_m', 'allowAlways', undefined, undefined],
          ['ap_n', 'deny', undefined, 'not now'],
        ],
      );
      await h.send({
        type: 'approvals',
        approvals: [],
        allowRules: [
          { rule: 'echo', scope: 'user' },
          { rule: 'mcp__h__echo', scope: 'user', kind: 'mcpTool' },
        ],
      });
      await h.page.getByRole('button', { name: 'Provider setup' }).click();
      const list = h.page.getByRole('list', { name: 'Always-allowed commands' });
      assert.deepEqual(await list.locator('li').allTextContents(), ['echouser', 'mcp__h__echoMCP tool']);
      await list.getByRole('button', { name: 'Stop allowing the MCP tool mcp__h__echo (user settings)' }).click();
      assert.deepEqual(
        (await ofType(h, 'removeAllowRule')).map((m) => m.rule),
        [{ rule: 'mcp__h__echo', scope: 'user', kind: 'mcpTool' }],
      );
    },
    { width: 292, height: 600 },
  );
});
