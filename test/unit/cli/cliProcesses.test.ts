// The CLI's commands die with it: SIGTERM stops them, a SIGKILLed CLI's leftovers are found and stopped on the next run, turns stop background jobs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { tempDir } from '../agent/agentHelpers.js';
import { alive, diesSoon } from '../tools/toolHelpers.js';
import { cliBundle } from './cliBundle.js';

/** The model runs `command` on the first request of each turn, then answers. */
async function server(t: { after(fn: () => Promise<void>): void }, command: string): Promise<FakeOpenAIServer> {
  const s = await startFakeOpenAI({ window: 60_000 });
  t.after(() => s.close());
  s.setFallback((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    return last?.role === 'tool' ? { text: 'done' } : { toolCalls: [{ name: 'run_command', arguments: { command } }] };
  });
  return s;
}

function chat(cli: string, s: FakeOpenAIServer, dir: string, extra: readonly string[] = []) {
  const child = spawn(
    process.execPath,
    [
      cli,
      'chat',
      '--base-url',
      s.url,
      '--model',
      'fake-model',
      '--window',
      '60000',
      '--max-output',
      '2000',
      '--session',
      join(dir, 'chat.jsonl'),
      '--workspace',
      dir,
      '--yes',
      ...extra,
      'go',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exit, output: () => out };
}

/** Generous on purpose: on a loaded machine a CLI can take many seconds to start its first command. */
const WAIT_MS = 120_000;

async function pidFrom(file: string): Promise<number> {
  for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline; await sleep(20)) {
    if (existsSync(file)) {
      const text = (await readFile(file, 'utf8')).trim();
      if (text !== '') return Number(text);
    }
  }
  throw new Error(`no pid in ${file}`);
}

test('SIGTERM of the CLI during run_command stops the command and its setsid child, and the turn ends cancelled', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-term-');
  const s = await server(t, `setsid sleep 60 > /dev/null 2>&1 & echo $! > ${join(dir, 'bg.pid')}; sleep 60`);
  const c = chat(await cliBundle(), s, dir);
  const pid = await pidFrom(join(dir, 'bg.pid'));
  c.child.kill('SIGTERM');
  assert.equal(await c.exit, 130, c.output());
  assert.equal(await diesSoon(pid), true, 'the setsid child outlived the CLI');
  assert.match(c.output(), /\[turn cancelled\]/);
});

/** Waits until `pid` runs `sleep` (bash writes $! right after the fork, before the child's exec). */
async function execed(pid: number): Promise<void> {
  for (const deadline = Date.now() + WAIT_MS; Date.now() < deadline; await sleep(20)) {
    if ((await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).startsWith('sleep\0')) return;
  }
  throw new Error(`${pid} never ran sleep`);
}

test('a SIGKILLed CLI leaves its command running; the next run finds it, stops it and says so', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-kill-');
  const s = await server(t, `sleep 60 > /dev/null 2>&1 & echo $! > ${join(dir, 'bg.pid')}; sleep 60`);
  const cli = await cliBundle();
  const first = chat(cli, s, dir);
  const pid = await pidFrom(join(dir, 'bg.pid'));
  await execed(pid);
  first.child.kill('SIGKILL');
  await first.exit;
  t.after(() => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already stopped, as it should be
    }
  });
  assert.equal(await alive(pid), true, 'nothing can stop a command when its CLI is SIGKILLed');
  s.setFallback(() => ({ text: 'hello again' }));
  // A run of another chat, in another folder, in between: it must leave this chat's leftovers alone (it used to stop
  // every orphaned command on the machine, so this chat's next run found nothing to report).
  const otherDir = await tempDir(t, 'capsule-cli-other-');
  const other = chat(cli, s, otherDir);
  assert.equal(await other.exit, 0, other.output());
  assert.doesNotMatch(other.output(), /left running by an earlier Capsule run/);
  assert.equal(await alive(pid), true, "another chat's run stopped this chat's command");
  const second = chat(cli, s, dir);
  assert.equal(await second.exit, 0, second.output());
  assert.match(second.output(), new RegExp(`\\[warn\\] Stopped \\d+ process(es)? left running by an earlier Capsule run that was killed: .*${pid} "sleep 60"`));
  assert.equal(await diesSoon(pid), true);
  const third = chat(cli, s, dir);
  assert.equal(await third.exit, 0, third.output());
  assert.doesNotMatch(third.output(), /left running by an earlier Capsule run/, 'reported once');
});

test('a turn that leaves a background job stops it when the turn ends', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-bg-');
  const s = await server(t, `sleep 60 > /dev/null 2>&1 & echo $! > ${join(dir, 'bg.pid')}`);
  const cli = await cliBundle();
  const c = chat(cli, s, dir);
  assert.equal(await c.exit, 0, c.output());
  const pid = await pidFrom(join(dir, 'bg.pid'));
  assert.equal(await diesSoon(pid), true);
  assert.match(c.output(), new RegExp(`\\[notice\\] Stopped 1 background process started by this turn's commands \\(pid ${pid}\\)`));
});
