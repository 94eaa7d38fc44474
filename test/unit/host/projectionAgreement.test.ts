// The live projection (agent events) and the snapshot projection (entries) show a model switch with a handoff in the same words and under the same id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { HostToWebview, TranscriptItem } from '../../../src/protocol/messages.js';
import { EventBridge } from '../../../src/vscode/projection/eventBridge.js';
import { branchItems } from '../../../src/vscode/projection/transcriptItems.js';
import type { AgentSession } from '../../../src/node/agentSession.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { session as historyOf } from '../compaction/harness.js';
import { GOOD_SUMMARY, openSession, tempDir, writeSession } from '../agent/agentHelpers.js';
import { card } from '../protocol/samples.js';

test('a switch whose handoff compacted first reads the same live and after a reload', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ models: [{ id: 'big', contextLength: 128_000 }, { id: 'small', contextLength: 32_768 }] });
  t.after(() => server.close());
  server.setFallback((req) => (req.body.tool_choice === 'none' ? { text: GOOD_SUMMARY } : { text: 'ok' }));
  const path = join(dir, 'chat.jsonl');
  await writeSession(path, historyOf(29, 100));

  const posted: HostToWebview[] = [];
  let opened: AgentSession | undefined;
  const store = () => {
    if (!opened) throw new Error('not open yet');
    return opened.store;
  };
  const bridge = new EventBridge({
    post: (m) => posted.push(m),
    entry: (id) => store().tree.get(id),
    leaf: () => {
      const id = store().leafId();
      return id === null ? undefined : store().tree.get(id);
    },
    entries: () => store().entries(),
    categories: () => ({ system: 0, tools: 0, capsule: 0, messages: 0, toolResults: 0, reservedOutput: 0 }),
    measured: () => undefined,
    ephemeral: () => undefined,
    compacted: () => undefined,
    log: () => undefined,
  });
  const o = await openSession(server, dir, { sessionPath: path, model: 'big', window: 128_000, maxOutput: 4096, settings: { keepRecentTokens: 8000, minReclaimableTokens: 4000, timeoutMs: 5000 }, listener: (e) => bridge.handle(e) });
  opened = o.session;
  t.after(() => o.session.close());
  bridge.setModel('big', o.session.agent.currentModel.chat.provider);

  const r = await o.session.switchModel({ chat: { baseURL: server.url, apiKey: '', model: 'small' }, override: { contextWindow: 32_768, maxOutputTokens: 4096 } });
  assert.equal(r.ok && r.handoff, true, 'the switch needed the handoff');

  const live = posted.flatMap((m) => (m.type === 'itemsAppended' ? m.items : [])).filter((i): i is Extract<TranscriptItem, { kind: 'info' }> => i.kind === 'info');
  assert.equal(live.length, 1, 'one announcement of the switch');
  const snapshot = branchItems(o.session.store.tree.branch(), { ephemeral: new Map(), card: () => card }).find((i) => i.id === live[0]?.id);
  assert.ok(snapshot?.kind === 'info', 'the snapshot shows the same item (same id)');
  assert.equal(snapshot.text, live[0]?.text);
  assert.match(snapshot.text, /small/);
});
