// Where Retry starts: before the failed request's output (a broken-off answer included), past bookkeeping, and only for the last failed turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryPoint } from '../../../src/engine/agent/turnRetry.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';

let n = 0;
const ts = '2026-01-01T00:00:00.000Z';
/** An entry without its place in the tree (distributed over the union, so each kind keeps its own fields). */
type Part = Entry extends infer E ? (E extends Entry ? Omit<E, 'id' | 'parentId' | 'timestamp'> : never) : never;

function chain(...parts: readonly Part[]): Entry[] {
  const out: Entry[] = [];
  for (const p of parts) out.push({ ...p, id: `e${++n}`, parentId: out[out.length - 1]?.id ?? null, timestamp: ts } as Entry);
  return out;
}
const user = (turnId: string) => ({ type: 'user', content: 'Explain the build', turnId }) as const;
const end = (turnId: string, status: 'failed' | 'completed' | 'cancelled') => ({ type: 'turn_end', turnId, status }) as const;

test('a failed turn retries from just before its end; its broken-off answer and later bookkeeping stay behind', () => {
  const b = chain(
    user('t1'),
    { type: 'assistant', content: 'The build us', toolCalls: [], turnId: 't1', finishReason: 'error' },
    end('t1', 'failed'),
    { type: 'model_change', provider: 'p', model: 'm' },
    { type: 'checkpoint', checkpointId: 'ck_1', kind: 'auto' },
  );
  const p = retryPoint(b);
  assert.ok(p.ok);
  assert.equal(p.turnId, 't1');
  assert.equal(p.userEntryId, b[0]?.id);
  assert.equal(p.targetId, b[0]?.id, 'the broken-off answer is not sent back');
  assert.deepEqual(retryPoint(b, 't1'), p);
});

test('after tool results the retry resends the same continuation', () => {
  const b = chain(
    user('t2'),
    { type: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }], turnId: 't2' },
    { type: 'tool_result', toolCallId: 'c1', toolName: 'read_file', content: 'x', isError: false, turnId: 't2' },
    end('t2', 'failed'),
  );
  const p = retryPoint(b);
  assert.ok(p.ok);
  assert.equal(p.targetId, b[2]?.id);
});

test('refused: a completed or stopped last turn, a new message after the failure, another turn id, no turn at all', () => {
  assert.match(
    retryPoint(chain(user('t3'), end('t3', 'completed'))).ok ? '' : (retryPoint(chain(user('t3'), end('t3', 'completed'))) as { error: string }).error,
    /completed/,
  );
  const stopped = retryPoint(chain(user('t4'), end('t4', 'cancelled')));
  assert.ok(!stopped.ok && /stopped/.test(stopped.error));
  const moved = retryPoint(chain(user('t5'), end('t5', 'failed'), user('t6')));
  assert.ok(!moved.ok && /Only the last turn/.test(moved.error));
  const other = retryPoint(chain(user('t7'), end('t7', 'failed')), 't0');
  assert.ok(!other.ok && /no longer the last/.test(other.error));
  assert.equal(retryPoint([]).ok, false);
});
