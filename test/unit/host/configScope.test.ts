// One configuration scope rule for every toggle: the palette, the toolbar and `/auto-compact` write where the user set the value.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createHarness, until } from './hostHarness.js';

const h = createHarness();
const { state } = h;
const KEY = 'capsule.compaction.auto';
const USER = 1;
const WORKSPACE = 2;

before(() => h.start());
after(() => h.stop());

function lastTarget(): unknown {
  return [...state.writes].reverse().find((w) => w.key === KEY)?.target;
}

test('a value from user settings is written back to user settings by every way of toggling it (a workspace folder is open)', async () => {
  const v = h.openView();
  state.scopes.set(KEY, 'user');
  h.configure({ [KEY]: true });

  await h.command('capsule.toggleAutoCompact');
  assert.equal(lastTarget(), USER, 'palette');
  assert.equal(state.config.get(KEY), false);

  const writes = state.writes.length;
  v.send({ type: 'command', command: 'toggleAutoCompact' });
  await until(() => state.writes.length > writes, 'the toolbar toggle wrote');
  assert.equal(lastTarget(), USER, 'toolbar');
  assert.equal(state.config.get(KEY), true);

  const again = state.writes.length;
  v.send({ type: 'send', text: '/auto-compact off', clientId: 'c1' });
  await until(() => state.writes.length > again, '/auto-compact wrote');
  assert.equal(lastTarget(), USER, '/auto-compact');
  assert.equal(state.config.get(KEY), false);
  v.dispose();
});

test('a value set in the workspace stays a workspace setting', async () => {
  state.scopes.set(KEY, 'workspace');
  h.configure({ [KEY]: true });
  await h.command('capsule.toggleAutoCompact');
  assert.equal(lastTarget(), WORKSPACE);
});
