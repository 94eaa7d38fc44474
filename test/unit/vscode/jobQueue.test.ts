// The chat's one-at-a-time queue: inputs queue only while busy, host tasks go first, Stop and preemption.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QueuedInput } from '../../../src/protocol/messages.js';
import { JobQueue, type InputJob } from '../../../src/vscode/services/jobQueue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function rig() {
  const log: string[] = [];
  const queues: string[][] = [];
  const gates = new Map<string, ReturnType<typeof deferred>>();
  const signals = new Map<string, AbortSignal>();
  const q = new JobQueue({
    runInput: async (job: InputJob, signal) => {
      log.push(`start ${job.text}`);
      signals.set(job.text, signal);
      const gate = deferred();
      gates.set(job.text, gate);
      signal.addEventListener('abort', () => gate.resolve());
      await gate.promise;
      log.push(`end ${job.text}${signal.aborted ? ' (aborted)' : ''}`);
    },
    queueChanged: (items: readonly QueuedInput[]) => queues.push(items.map((i) => i.id)),
    busyChanged: (busy) => log.push(`busy ${busy}`),
    inputFailed: (job, err) => log.push(`failed ${job.text}: ${String(err)}`),
  });
  const input = (text: string): InputJob => ({ kind: 'input', id: `id-${text}`, text });
  const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
  return { q, log, queues, gates, signals, input, tick };
}

test('an input runs at once when idle (never shown as queued); a second one queues until the first ends', async () => {
  const r = rig();
  r.q.addInput(r.input('a'));
  await r.tick();
  assert.deepEqual(r.queues, [], 'nothing was queued');
  assert.equal(r.q.busy, true);
  r.q.addInput(r.input('b'));
  assert.deepEqual(r.queues, [['id-b']]);
  r.gates.get('a')?.resolve();
  await r.tick();
  await r.tick();
  assert.deepEqual(r.queues, [['id-b'], []], 'taken off the queue when it starts');
  r.gates.get('b')?.resolve();
  await r.tick();
  await r.tick();
  assert.deepEqual(r.log, ['busy true', 'start a', 'end a', 'busy true', 'start b', 'end b', 'busy false']);
  assert.equal(r.q.busy, false);
});

test('host tasks run before queued inputs, after what runs now; Stop aborts only the running job', async () => {
  const r = rig();
  r.q.addInput(r.input('a'));
  r.q.addInput(r.input('b'));
  const order: string[] = [];
  const task = r.q.addTask('switch', async () => void order.push(`task while ${r.log.filter((l) => l.startsWith('start')).join(',')}`));
  r.q.cancel();
  await task;
  assert.deepEqual(order, ['task while start a'], 'the task ran between a and b');
  assert.equal(r.signals.get('a')?.aborted, true);
  await r.tick();
  assert.equal(r.signals.get('b')?.aborted, false, 'the next input was not cancelled');
  r.gates.get('b')?.resolve();
  await r.tick();
});

test('preempt stops the running input and drops the queued ones (a rewind or a new chat)', async () => {
  const r = rig();
  r.q.addInput(r.input('a'));
  r.q.addInput(r.input('b'));
  r.q.addInput(r.input('c'));
  r.q.preempt();
  await r.q.addTask('rewind', async () => undefined);
  await r.tick();
  assert.deepEqual(r.queues.at(-1), []);
  assert.ok(!r.log.includes('start b') && !r.log.includes('start c'));
  assert.ok(r.log.includes('end a (aborted)'));
  assert.equal(r.log.at(-1), 'busy false');
});

test('a failing task rejects its caller and the queue goes on', async () => {
  const r = rig();
  await assert.rejects(
    r.q.addTask('bad', async () => Promise.reject(new Error('nope'))),
    /nope/,
  );
  await r.q.addTask('good', async () => undefined);
  assert.equal(r.q.occupied, false);
});
