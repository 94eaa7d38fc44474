// `capsule chat` with subagents: each child's progress is printed indented under the parent's task line; --set checks capsule.subagents.*.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { scenario, task } from '../agent/subagentHelpers.js';

process.env.CAPSULE_LIMITS_FILE ??= join(tmpdir(), `capsule-cli-subagents-limits-${process.pid}.json`);

test("capsule chat prints a child's progress indented and the parent's answer", { timeout: 120_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-cli-sub-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const ws = join(dir, 'ws');
  await mkdir(ws);
  await writeFile(join(ws, 'a.txt'), 'a\n');
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback(
    scenario({
      parentCalls: [task('look at a', 'CHILD: read a.txt')],
      parentAnswer: 'Parent: done.',
      child: (_p, req) =>
        req.body.messages.some((m) => m.role === 'tool') ? { text: 'Child report.' } : { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    }),
  );
  const lines: string[] = [];
  const args = [
    'chat',
    '--base-url',
    server.url,
    '--model',
    'fake-model',
    '--window',
    '20000',
    '--max-output',
    '2000',
    '--session',
    join(dir, 'chat.jsonl'),
    '--workspace',
    ws,
  ];
  const code = await main([...args, '--set', 'capsule.subagents.maxConcurrent=2', 'delegate'], (s) => lines.push(s));
  assert.equal(code, 0, lines.join('\n'));
  const start = lines.findIndex((l) => /^ {4}\[subagent sa_\w+\] look at a: started$/.test(l));
  const toolLine = lines.findIndex((l) => /^ {4}\[sa_\w+\] \[tool\] read_file /.test(l));
  const end = lines.findIndex((l) => /^ {4}\[subagent sa_\w+\] look at a: completed \(2 requests, [\d,]+ tokens\)$/.test(l));
  assert.ok(start >= 0 && start < toolLine && toolLine < end, lines.join('\n'));
  assert.ok(lines.some((l) => l === 'Parent: done.'));
  assert.ok(!lines.some((l) => l.includes('Child report.') && l.startsWith('    ')), "the child's answer text is not streamed to the terminal");

  // capsule budget lists the run with its own cost, apart from the parent's figures.
  const budget: string[] = [];
  assert.equal(await main(['budget', join(dir, 'chat.jsonl')], (s) => budget.push(s)), 0);
  const at = budget.findIndex((l) => l.includes('Subagents:') && l.includes('1 run'));
  assert.ok(at >= 0, budget.join('\n'));
  assert.match(budget[at + 1] ?? '', /sa_\w+ "look at a" · 2 requests · [\d,]+ prompt \+ [\d,]+ completion tokens · largest prompt [\d,]+ · 0 compactions/);

  await assert.rejects(
    main([...args, '--set', 'capsule.subagents.maxConcurrent=0', 'x'], () => undefined),
    (e: unknown) => e instanceof CliError && /capsule\.subagents\.maxConcurrent \(0\) is invalid/.test(e.message),
  );
});
