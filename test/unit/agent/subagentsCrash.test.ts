// A process SIGKILLed while its subagents run: the next turn repairs the open task calls like any tool call and is valid on a strict server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { openSession, rejected, tempDir, verifyFile } from './agentHelpers.js';
import { scenario, task } from './subagentHelpers.js';

const CHILD = join(__dirname, 'subagentCrashChild.ts');

test('SIGKILL mid-child, then a next turn on a strict server: the open task calls get interrupted results and the chat goes on', {
  timeout: 180_000,
}, async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'a.txt'), 'a\n');
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  let childRequests = 0;
  server.setFallback(
    scenario({
      parentCalls: [task('one', 'CHILD-1: read a.txt'), task('two', 'CHILD-2: read a.txt')],
      child: (_p, req) => {
        if (!req.body.messages.some((m) => m.role === 'tool')) return { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] };
        childRequests++;
        // The children hang in their second request: the kill lands while both are running.
        return { hang: true };
      },
    }),
  );
  const path = join(dir, 'chat.jsonl');
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, server.url, path, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  // Wait (generously) until both children wait on their second request.
  for (let i = 0; childRequests < 2; i++) {
    if (gone) throw new Error(`the process ended before the kill: ${stderr.slice(0, 500)}`);
    if (i > 6000) throw new Error('the children never reached their second request');
    await sleep(20);
  }
  proc.kill('SIGKILL');
  await exited;
  assert.match(await readFile(path, 'utf8'), /"subagent"/);

  server.reset();
  server.setFallback(() => ({ text: 'Continuing after the interruption.' }));
  const o = await openSession(server, dir, { sessionPath: path });
  const r = await o.session.turn({ userText: 'next: go on', signal: new AbortController().signal });
  await o.session.close();
  assert.equal(r.status, 'completed', r.error);
  assert.deepEqual(rejected(server), [], 'the strict server accepted every request');
  const load = await loadSessionFile(path);
  const results = load.tree.branch().filter((e) => e.type === 'tool_result' && e.toolName === 'task');
  assert.equal(results.length, 2);
  assert.ok(results.every((e) => e.type === 'tool_result' && e.interrupted === true));
  const report = await verifyFile(path);
  assert.ok(report.ok, report.issues.map((i) => i.message).join('; '));
});
