// Commands die with their turn: background and setsid children are tracked and stopped, secrets stay out of the environment.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alive, diesSoon, makeHost, workspace } from './toolHelpers.js';

function pidOf(content: string): number {
  const m = /^(\d+)$/m.exec(content);
  assert.ok(m?.[1], content);
  return Number(m[1]);
}

test('a background child with its output detached is reported, kept through the tool, and stopped when the turn ends', async (t) => {
  const { ws } = await workspace(t);
  const h = makeHost(ws);
  const r = await h.call('run_command', { command: 'sleep 30 > /dev/null 2>&1 & echo $!' });
  const pid = pidOf(r.content);
  assert.match(r.content, new RegExp(`\\[still running in the background: pid ${pid}; stopped when this turn ends\\]`));
  assert.equal(await alive(pid), true);
  const line = await h.host.endTurn();
  assert.match(line ?? '', new RegExp(`Stopped 1 background process started by this turn's commands \\(pid ${pid}\\)`));
  assert.equal(await diesSoon(pid), true);
  assert.equal(await h.host.endTurn(), undefined);
});

test('a setsid child leaves the process group but not the tracking: stopped at turn end, and on timeout', async (t) => {
  const { ws } = await workspace(t);
  const h = makeHost(ws);
  const r = await h.call('run_command', { command: 'setsid sleep 30 > /dev/null 2>&1 & echo $!' });
  const pid = pidOf(r.content);
  assert.equal(await alive(pid), true);
  await h.host.endTurn();
  assert.equal(await diesSoon(pid), true);

  const timed = await h.call('run_command', { command: 'setsid sleep 30 > /dev/null 2>&1 & echo $!; sleep 30', timeoutMs: 300 });
  assert.match(timed.content, /killed after timeout \(300 ms\)/);
  assert.equal(await diesSoon(pidOf(timed.content)), true);
});

test('a cancelled command stops its setsid children too', async (t) => {
  const { ws } = await workspace(t);
  const h = makeHost(ws);
  const ctrl = new AbortController();
  const { writeFile, readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const pidFile = join(ws, 'pid');
  void writeFile(pidFile, '');
  const running = h.call('run_command', { command: `setsid sleep 30 > /dev/null 2>&1 & echo $! > ${pidFile}; sleep 30` }, ctrl.signal);
  let pid = 0;
  while (pid === 0) {
    await new Promise((r) => setTimeout(r, 20));
    pid = Number((await readFile(pidFile, 'utf8')).trim() || 0);
  }
  ctrl.abort();
  const r = await running;
  assert.equal(r.isError, true);
  assert.equal(await diesSoon(pid), true);
});

test('keepBackgroundProcesses lets them outlive the turn; closing the session still stops them', async (t) => {
  const { ws } = await workspace(t);
  const h = makeHost(ws, { keepBackgroundProcesses: true });
  const r = await h.call('run_command', { command: 'sleep 30 > /dev/null 2>&1 & echo $!' });
  const pid = pidOf(r.content);
  assert.match(r.content, /kept after the turn ends/);
  assert.equal(await h.host.endTurn(), undefined);
  assert.equal(await alive(pid), true);
  await h.host.dispose();
  assert.equal(await diesSoon(pid), true);
});

test('the API key never reaches a command, under whatever variable name it sits', async (t) => {
  const { ws } = await workspace(t);
  const key = 'sk-capsule-test-0123456789abcdef';
  process.env.OPENAI_API_KEY_FOR_TEST = key;
  process.env.SOME_OTHER_NAME = `Bearer ${key}`;
  t.after(() => {
    delete process.env.OPENAI_API_KEY_FOR_TEST;
    delete process.env.SOME_OTHER_NAME;
  });
  const h = makeHost(ws, { secrets: () => [key] });
  const r = await h.call('run_command', { command: 'env' });
  assert.equal(r.isError, false);
  assert.equal(r.content.includes(key), false);
  assert.match(r.content, /^PATH=/m);
  assert.match(r.content, /^CAPSULE_COMMAND_ID=\d+:[0-9a-f]+$/m);
});
