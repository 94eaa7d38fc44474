// The budget shows instruction tokens per file (/budget, the meter); over the share of the window the chat names the file to trim and nothing is cut.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBudget } from '../../../src/engine/tokens/budgetFormat.js';
import { toBudgetView } from '../../../src/vscode/projection/viewModels.js';
import { BudgetViewSchema } from '../../../src/protocol/views.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentRequests, agentResponder, tempDir } from '../agent/agentHelpers.js';
import { openWithInstructions, systemText, workspaceWith } from './instructionHelpers.js';

test('/budget lists the instruction files with their tokens; a file over the window share is named once, sent whole', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback(agentResponder(() => []));
  const big = Array.from({ length: 400 }, (_, i) => `- rule ${i}: keep module ${i} small and tested.`).join('\n');
  const ws = await workspaceWith(dir, { 'AGENTS.md': 'SMALL-RULE\n', 'CLAUDE.md': `${big}\n` });
  const { session, events } = await openWithInstructions(server, dir, ws, { instr: { userDir: null, maxWindowShare: 0.2 } });
  t.after(() => session.close());
  await session.turn({ userText: 'hello', signal: new AbortController().signal });
  const b = session.budget();
  const files = b.instructions ?? [];
  assert.deepEqual(
    files.map((f) => f.label),
    ['AGENTS.md', 'CLAUDE.md'],
  );
  assert.ok((files[1]?.tokens ?? 0) > 3000 && (files[0]?.tokens ?? 0) < 50);
  assert.match(formatBudget(b), /instructions: +[\d,]+ \(AGENTS\.md \d+, CLAUDE\.md [\d,]+\)/);
  const view = BudgetViewSchema.parse(toBudgetView(b));
  assert.equal(view.instructions?.length, 2);
  const warnings = events.filter((e) => e.type === 'notice' && e.level === 'warn' && /trim CLAUDE\.md/.test(e.message));
  assert.equal(warnings.length, 1, 'told once which file to trim');
  const first = agentRequests(server)[0];
  assert.ok(first !== undefined && systemText(first).includes(big), 'never truncated');
});
