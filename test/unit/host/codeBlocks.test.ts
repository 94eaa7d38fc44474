// A code block's buttons in the editor: New File opens an untitled document with the code, Insert at Cursor replaces the selection, no editor says what to do.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createHarness, type OpenView, until } from './hostHarness.js';

const h = createHarness({ settings: { 'capsule.model.id': 'fake-model' } });
let v: OpenView;

before(async () => {
  await h.start();
  v = h.openView();
  await until(() => v.messages().some((m) => m.type === 'snapshot'), 'the first snapshot');
});

after(async () => {
  v.dispose();
  await h.stop();
});

test('New File, Insert at Cursor, and no editor open', async () => {
  v.send({ type: 'codeBlock', action: 'newFile', code: 'print(1)\n', language: 'python' });
  await until(() => h.state.shown.length > 0, 'the new document');
  assert.deepEqual(h.state.shown[0]?.target, { content: 'print(1)\n', language: 'python' });

  const mark = v.mark();
  v.send({ type: 'codeBlock', action: 'insert', code: 'x' });
  await until(() => v.since(mark).some((m) => m.type === 'notice'), 'the notice');
  assert.match(JSON.stringify(v.since(mark)), /Open a file and put the cursor where the code goes/);

  const edits: [unknown, string][] = [];
  const selection = { isEmpty: false, start: 3, end: 7 };
  h.state.activeEditor = {
    selection,
    document: { uri: { fsPath: '/w/a.ts' } },
    edit: async (f: (b: { replace(r: unknown, t: string): void }) => void) => (f({ replace: (r, t) => edits.push([r, t]) }), true),
  };
  v.send({ type: 'codeBlock', action: 'insert', code: 'const a = 1;' });
  await until(() => edits.length > 0, 'the edit');
  assert.deepEqual(edits, [[selection, 'const a = 1;']], 'the code replaces the selection (or lands at the cursor)');
  h.state.activeEditor = undefined;
});
