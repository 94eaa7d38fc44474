// Palette "Load Capsule…": the capsule is previewed and sent where the user says before anything is loaded; an edited one needs "Load Anyway".
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileText, META } from '../portable/helpers.js';
import { createHarness, lastOf, until, type OpenView } from './hostHarness.js';

const h = createHarness({ workspace: true });
let v: OpenView;
let file = '';
const sessions = (): string[] => {
  const dir = join(h.storage, 'sessions');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.jsonl')) : [];
};

before(async () => {
  await h.start();
  v = h.openView();
  await until(() => lastOf(v.messages(), 'snapshot') !== undefined && sessions().length === 1, 'the first chat');
  file = join(h.tmp, 'handoff.capsule.md');
  writeFileSync(file, fileText({ ...META, title: 'handoff auth work' }));
});

after(async () => {
  v.dispose();
  await h.stop();
});

const pick = (): unknown[] => [(h.api.Uri as { file(p: string): unknown }).file(file)];

test('the capsule is previewed and must be confirmed: declining loads nothing, "New Chat" starts a new chat from it', async () => {
  const before = sessions().length;
  h.state.answer = (kind) => (kind === 'openDialog' ? pick() : undefined);
  await h.command('capsule.loadCapsule');
  assert.ok(
    h.state.asked.some((a) => a.kind === 'modal' && a.prompt === 'Load capsule "handoff auth work"?'),
    'asked before loading',
  );
  assert.equal(sessions().length, before, 'declining loads nothing');

  h.state.answer = (kind, prompt) => (kind === 'openDialog' ? pick() : kind === 'modal' && prompt.startsWith('Load capsule') ? 'New Chat' : undefined);
  await h.command('capsule.loadCapsule');
  await until(() => sessions().length === before + 1, 'a new chat');
  await until(
    () =>
      v
        .messages()
        .some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'info' && /Loaded capsule "handoff auth work" into a new chat/.test(i.text))),
    'the chat to say so',
  );
});

test('an edited capsule is refused unless the user picks "Load Anyway"', async () => {
  writeFileSync(file, readFileSync(file, 'utf8').replace('## Goal\n', '## Goal\nEdited by hand.\n'));
  const before = sessions().length;
  h.state.answer = (kind, prompt) => (kind === 'openDialog' ? pick() : kind === 'modal' && prompt.startsWith('Load capsule') ? 'New Chat' : undefined);
  await h.command('capsule.loadCapsule');
  assert.ok(h.state.asked.some((a) => a.kind === 'modal' && /edited after it was exported/.test(a.prompt)));
  assert.equal(sessions().length, before, 'dismissing the warning loads nothing');

  h.state.answer = (kind, prompt) =>
    kind === 'openDialog' ? pick() : kind === 'modal' ? (prompt.startsWith('Load capsule') ? 'New Chat' : 'Load Anyway') : undefined;
  await h.command('capsule.loadCapsule');
  await until(() => sessions().length === before + 1, 'the edited capsule loaded after Load Anyway');
});
