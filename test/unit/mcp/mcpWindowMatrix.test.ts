// The MCP window matrix: 8k, 32k and 128k with the filesystem and everything servers (plus the fixture that sends list_changed): every turn answered, 0 requests over the window, the cached prefix unchanged across list_changed.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import type { ChatBody } from '../../fakes/types.js';
import { isSummaryRequest } from '../../fakes/openaiServer.js';
import { entries, mcpChat, mcpChatRig, requests } from './chatRig.js';

const WINDOWS = [8_192, 32_768, 128_000] as const;

interface Call {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** Each task's MCP calls; with deferred tools each becomes mcp_tools (load the schema) then mcp_call. */
function tasks(ws: string): readonly (readonly Call[])[] {
  return [
    [{ name: 'mcp__fs__list_directory', arguments: { path: ws } }],
    [{ name: 'mcp__everything__echo', arguments: { message: 'hello from the matrix' } }],
    [{ name: 'mcp__fs__read_text_file', arguments: { path: join(ws, 'big.txt') } }],
    [
      { name: 'mcp__h__add_tool', arguments: {} },
      { name: 'mcp__h__late', arguments: {} },
    ],
  ];
}

function text(c: unknown): string {
  return typeof c === 'string' ? c : JSON.stringify(c ?? '');
}

/** The scripted model: finds its task in the last user message and its step from the tool results since. */
function responder(ws: string) {
  const all = tasks(ws);
  return (req: { body: ChatBody }) => {
    const msgs = req.body.messages;
    let u = msgs.length - 1;
    while (u >= 0 && msgs[u]?.role !== 'user') u--;
    const task = Number(/Task (\d+)/.exec(text(msgs[u]?.content))?.[1] ?? '1');
    const steps = msgs.slice(u + 1).filter((m) => m.role === 'tool').length;
    const direct = (req.body.tools ?? []).some((t) => JSON.stringify(t).includes('"mcp__fs__list_directory"'));
    const plan: Call[] = [];
    for (const c of all[task - 1] ?? []) {
      // The late tool is never in the fixed list: it is loaded and called through the meta-tools.
      if (direct && c.name !== 'mcp__h__late') plan.push(c);
      else plan.push({ name: 'mcp_tools', arguments: { names: [c.name] } }, { name: 'mcp_call', arguments: { name: c.name, arguments: c.arguments } });
    }
    const next = plan[steps];
    return next === undefined ? { text: `Task ${task} done.` } : { toolCalls: [next] };
  };
}

for (const window of WINDOWS) {
  test(`MCP at ${window}: both servers configured, every turn answered, 0 requests over the window, prefix kept across list_changed`, async (t) => {
    const rig = await mcpChatRig(t, window, 'basic');
    // A file of about a third of the window: its result must be bounded to fit.
    const lines: string[] = [];
    for (let i = 0; lines.length * 14 < window / 3; i++) lines.push(`line ${i} of big.txt: the quick brown fox jumps over the lazy dog`);
    await writeFile(join(rig.ws, 'big.txt'), `${lines.join('\n')}\n`);
    rig.server.onMatch({ summary: true }, { text: GOOD_SUMMARY });
    rig.server.setFallback(responder(rig.ws));
    const all = tasks(rig.ws);
    const deferredSeen: boolean[] = [];
    let budgetLine = '';
    for (let i = 1; i <= all.length; i++) {
      const before = rig.server.chatRequests.length;
      const r = await mcpChat(rig, `Task ${i}: use the MCP tools`);
      assert.equal(r.code, 0, `window ${window}, task ${i}:\n${r.lines.join('\n')}`);
      assert.ok(r.lines.includes(`Task ${i} done.`), `task ${i} answered:\n${r.lines.join('\n')}`);
      budgetLine = r.lines.find((l) => l.startsWith('[mcp] MCP tool schemas: ')) ?? '';
      assert.match(budgetLine, /^\[mcp\] MCP tool schemas: \d+ tokens \(everything \d+ · fs \d+ · h \d+\); (deferred|offered in full)/);
      const summaries = new Set(rig.server.chatRequests.flatMap((q, k) => (isSummaryRequest(q.body as ChatBody) ? [k] : [])));
      const numbered = requests(rig.server)
        .map((q, k) => ({ q, k }))
        .slice(before)
        .filter(({ k }) => !summaries.has(k));
      const mine = numbered.map(({ q }) => q);
      deferredSeen.push(!(mine[0]?.tools.includes('mcp__fs__list_directory') ?? false));
      if (i === all.length) {
        // Across the list_changed: the tool list is byte-identical and the system prompt only grows at its end.
        for (let k = 1; k < mine.length; k++) {
          const a = mine[k - 1];
          const b = mine[k];
          if (a === undefined || b === undefined) continue;
          assert.equal(b.toolsJson, a.toolsJson, `request ${k}: the tool list is unchanged`);
          // A compaction between the two opens a new cache epoch, whose base is rebuilt by design (S14 governs one epoch).
          const from = numbered[k - 1]?.k ?? 0;
          const to = numbered[k]?.k ?? 0;
          if ([...summaries].some((s) => s > from && s < to)) continue;
          assert.ok(b.system.startsWith(a.system), `request ${k}: the cached system prefix is unchanged`);
        }
        const late = (await entries(rig)).filter((e) => e.type === 'tool_result').pop();
        assert.equal(late?.content, 'late tool ran');
      }
    }
    const reqs = requests(rig.server);
    const largest = Math.max(...reqs.map((q) => q.promptTokens + q.maxTokens));
    const rejected = reqs.filter((q) => q.status !== 200).length;
    t.diagnostic(budgetLine);
    t.diagnostic(
      `window ${window}: deferred=${deferredSeen.join(',')}, ${reqs.length} requests, largest prompt + max_tokens ${largest} of ${window}, ${rejected} rejected`,
    );
    assert.equal(rejected, 0);
    assert.ok(largest <= window, `${largest} > ${window}`);
    if (window === 8_192) assert.ok(deferredSeen.every((d) => d) && budgetLine.includes('; deferred'), 'at 8k the schemas are deferred');
    if (window === 128_000)
      assert.ok(
        deferredSeen.every((d) => !d),
        'at 128k the schemas are offered',
      );
  });
}
