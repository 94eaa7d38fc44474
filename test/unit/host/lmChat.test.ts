// The chat on a VS Code language model: setup waits for the model to appear, then the picker and a streamed turn use it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EventEmitter } from '../../support/fakeVscodeParts.js';
import { createHarness, lastOf, until, type OpenView } from './hostHarness.js';
import { createFakeLmVscode, FakeLanguageModelChat, LanguageModelTextPart } from '../vscode/fakeLm.js';

const h = createHarness({ settings: { 'capsule.provider.kind': 'vscode-lm', 'capsule.model.id': 'copilot-gpt' } });
const lm = createFakeLmVscode();
const changes = new EventEmitter<void>();
Object.assign(h.api, lm.api, { lm: { ...(lm.api.lm as object), onDidChangeChatModels: changes.event } });
let v: OpenView;

before(async () => {
  await h.start();
  v = h.openView();
  await until(() => lastOf(v.messages(), 'snapshot')?.setup !== null && lastOf(v.messages(), 'snapshot')?.setup !== undefined, 'the first setup state');
});

after(async () => {
  v.dispose();
  await h.stop();
});

test('a VS Code model that is not there (yet) asks for setup; when it appears the chat uses it', async () => {
  const first = lastOf(v.messages(), 'snapshot');
  assert.equal(first?.setup?.required, true);
  assert.match(first?.setup?.message ?? '', /copilot-gpt.*not available/);
  assert.deepEqual(first?.setup?.provider, { kind: 'lm', modelId: 'copilot-gpt' });

  lm.models.push(new FakeLanguageModelChat('copilot-gpt', 'copilot', 'gpt', 'Copilot GPT', '1', 64_000));
  changes.fire();
  await until(() => lastOf(v.messages(), 'snapshot')?.setup?.required === false, 'the model to be used');
  const snap = lastOf(v.messages(), 'snapshot');
  assert.equal(snap?.currentModelId, 'lm:copilot-gpt');
  const option = snap?.models.find((m) => m.id === 'lm:copilot-gpt');
  assert.deepEqual(option && [option.provider, option.label, option.contextWindow], ['lm', 'Copilot GPT (copilot)', 64_000 + 4_096]);
  assert.deepEqual(snap?.setup?.lmModels, [{ id: 'copilot-gpt', label: 'Copilot GPT', vendor: 'copilot', maxInputTokens: 64_000 }]);

  lm.models[0]?.script({ steps: [{ part: new LanguageModelTextPart('Hello ') }, { part: new LanguageModelTextPart('from the LM API.') }] });
  const mark = v.mark();
  v.send({ type: 'send', text: 'hi', clientId: 'l1' });
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy), 'the turn');
  const end = v.since(mark).find((m) => m.type === 'streamEnd');
  assert.ok(end?.type === 'streamEnd');
  assert.equal(end.markdown, 'Hello from the LM API.');
  assert.equal(lm.models[0]?.requests.length, 1);
});
