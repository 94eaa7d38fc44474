// The API key reaches no environment a command can read: not its own, not its parent's, not any ancestor's (/proc/<pid>/environ), not the transcript.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { tempDir } from '../agent/agentHelpers.js';
import { alive, diesSoon } from '../tools/toolHelpers.js';
import { cliBundle } from './cliBundle.js';

/**
 * Walks from the command's shell up to the test process (or pid 1), printing each pid and any variable of its initial
 * environment (what /proc shows) that carries a test key — only those, so no other environment is copied anywhere.
 */
const WALK = [
  'p=$$',
  `while [ "$p" -gt 1 ] && [ "$p" != ${process.pid} ]; do echo "== pid $p"; tr "\\0" "\\n" < /proc/$p/environ | grep sk-test-; p=$(sed -E "s/^.*\\) [A-Za-z] ([0-9]+) .*$/\\1/" /proc/$p/stat); done 2>&1 | tee walk.txt`,
].join('; ');

async function server(t: { after(fn: () => Promise<void>): void }, apiKey: string, command: string): Promise<FakeOpenAIServer> {
  const s = await startFakeOpenAI({ window: 60_000, apiKey });
  t.after(() => s.close());
  s.setFallback((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    return last?.role === 'tool' ? { text: 'walked' } : { toolCalls: [{ name: 'run_command', arguments: { command } }] };
  });
  return s;
}

function chat(cli: string, s: FakeOpenAIServer, dir: string, env: NodeJS.ProcessEnv, keyArgs: readonly string[]) {
  const args = [
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
    ...keyArgs,
    'go',
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, exit, output: () => out, errors: () => err };
}

for (const via of ['--api-key-env', 'OPENAI_API_KEY'] as const) {
  test(`a key given through ${via}: no ancestor of a command holds it in its environment, and it reaches neither the transcript nor the model`, async (t) => {
    const dir = await tempDir(t, 'capsule-cli-key-');
    const key = `sk-test-${randomBytes(12).toString('hex')}`;
    const s = await server(t, key, WALK);
    const env = via === 'OPENAI_API_KEY' ? { OPENAI_API_KEY: key, ALSO_THE_KEY: `prefix ${key}` } : { CAPSULE_TEST_KEY: key, ALSO_THE_KEY: `prefix ${key}` };
    const c = chat(await cliBundle(), s, dir, env, via === '--api-key-env' ? ['--api-key-env', 'CAPSULE_TEST_KEY'] : []);
    assert.equal(await c.exit, 0, c.output() + c.errors());
    // The key did its job: the fake server refuses requests without it.
    assert.equal(s.chatRequests.length, 2);
    assert.ok(s.chatRequests.every((r) => r.headers.authorization === `Bearer ${key}`));
    const walk = await readFile(join(dir, 'walk.txt'), 'utf8');
    const pids = walk.split('\n').filter((l) => l.startsWith('== pid '));
    assert.ok(pids.length >= 2, `the walk saw the command and at least its parent:\n${walk}`);
    // The process the test started (which holds the key) is no ancestor of the command.
    assert.ok(!pids.includes(`== pid ${c.child.pid ?? -1}`), walk);
    assert.ok(
      !walk.includes(key),
      `an ancestor of the command holds the key:\n${walk
        .split('\n')
        .filter((l) => l.startsWith('==') || l.includes(key))
        .join('\n')}`,
    );
    assert.match(c.output(), /^walked$/m);
    assert.doesNotMatch(c.output() + c.errors(), new RegExp(key));
    assert.ok(!(await readFile(join(dir, 'chat.jsonl'), 'utf8')).includes(key), 'the key is in the transcript');
    assert.ok(
      s.chatRequests.every((r) => !r.rawBody.includes(key)),
      'the key was sent to the model',
    );
  });
}

test('with a key, SIGTERM still cancels the turn (exit 130); a SIGKILLed launcher takes the CLI and its command down with it', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-key-signals-');
  const key = `sk-test-${randomBytes(12).toString('hex')}`;
  const s = await server(t, key, `echo $$ > ${join(dir, 'cmd.pid')}; sleep 60`);
  const cli = await cliBundle();
  const first = chat(cli, s, dir, { CAPSULE_TEST_KEY: key }, ['--api-key-env', 'CAPSULE_TEST_KEY']);
  const pid = await pidFrom(join(dir, 'cmd.pid'));
  first.child.kill('SIGTERM');
  assert.equal(await first.exit, 130, first.output() + first.errors());
  assert.match(first.output(), /\[turn cancelled\]/);
  assert.equal(await diesSoon(pid), true, 'the command outlived the cancelled turn');

  await rmPid(join(dir, 'cmd.pid'));
  const second = chat(cli, s, dir, { CAPSULE_TEST_KEY: key }, ['--api-key-env', 'CAPSULE_TEST_KEY']);
  const pid2 = await pidFrom(join(dir, 'cmd.pid'));
  assert.equal(await alive(pid2), true);
  second.child.kill('SIGKILL');
  await second.exit;
  // The CLI that does the work is not the launcher's child (so the launcher is no ancestor of the command); it notices the launcher is gone and stops.
  assert.equal(await goneWithin(pid2, 60_000), true, 'the command kept running after its launcher was SIGKILLed');
});

/** Waits (bounded generously, for a loaded machine) until the process is gone. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 20) {
    if (!(await alive(pid))) return true;
    await sleep(20);
  }
  return false;
}

async function rmPid(file: string): Promise<void> {
  const { rm } = await import('node:fs/promises');
  await rm(file, { force: true });
}

async function pidFrom(file: string): Promise<number> {
  for (let i = 0; i < 3_000; i++) {
    if (existsSync(file)) {
      const text = (await readFile(file, 'utf8')).trim();
      if (text !== '') return Number(text);
    }
    await sleep(10);
  }
  throw new Error(`no pid in ${file}`);
}

test('a provider that echoes the key in its error body: the key reaches neither the terminal nor the transcript', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-key-echo-');
  const key = `sk-test-${randomBytes(12).toString('hex')}`;
  const s = await startFakeOpenAI({ window: 60_000 });
  t.after(() => s.close());
  s.setFallback(() => ({
    status: 401,
    body: { error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error', code: 'invalid_api_key', param: key } },
  }));
  const c = chat(await cliBundle(), s, dir, { CAPSULE_TEST_KEY: key }, ['--api-key-env', 'CAPSULE_TEST_KEY']);
  assert.equal(await c.exit, 1, c.output() + c.errors());
  assert.match(c.output(), /^\[error\] .*HTTP 401/m);
  assert.ok(!(c.output() + c.errors()).includes(key), c.output() + c.errors());
  const files = await readdir(dir);
  for (const f of files.filter((n) => n.startsWith('chat'))) {
    const st = await stat(join(dir, f));
    if (st.isFile()) assert.ok(!(await readFile(join(dir, f), 'utf8')).includes(key), `the key is in ${f}`);
  }
});

test('a signal the CLI does not handle ends both processes the same way, as one process would end', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-key-usr2-');
  const key = `sk-test-${randomBytes(12).toString('hex')}`;
  const s = await server(t, key, `echo $$ > ${join(dir, 'cmd.pid')}; sleep 60`);
  const c = chat(await cliBundle(), s, dir, { CAPSULE_TEST_KEY: key }, ['--api-key-env', 'CAPSULE_TEST_KEY']);
  const ended = new Promise<NodeJS.Signals | null>((resolve) => c.child.once('exit', (_code, signal) => resolve(signal)));
  const pid = await pidFrom(join(dir, 'cmd.pid'));
  // A CLI killed by a signal cannot stop its command (the next run would): stop it here, so no other test meets it.
  t.after(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  c.child.kill('SIGUSR2');
  assert.equal(await ended, 'SIGUSR2', c.output() + c.errors());
});
