// Images to VS Code's language models: image parts where VS Code has them and the model says it takes images, a one-line note otherwise.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type * as vscode from 'vscode';
import type { ChatRequest } from '../../../src/engine/ports.js';
import { FakeLanguageModelChat, LanguageModelTextPart, installFakeLmVscode } from './fakeLm.js';

/** Like VS Code's (1.104 and later): `LanguageModelDataPart.image(data, mime)`. */
class LanguageModelDataPart {
  constructor(
    readonly data: Uint8Array,
    readonly mimeType: string,
  ) {}
  static image(data: Uint8Array, mime: string): LanguageModelDataPart {
    return new LanguageModelDataPart(data, mime);
  }
}

// Present before the module under test loads, as in a VS Code that has it (a module's view of `vscode` is taken at load).
// Without it (the 1.100 API) the note is sent: lmModel.test.ts covers that case.
const fake = installFakeLmVscode();
fake.api.LanguageModelDataPart = LanguageModelDataPart;
type LmModule = typeof import('../../../src/vscode/providers/lmModel.js');
let lm: LmModule;

before(async () => {
  lm = await import('../../../src/vscode/providers/lmModel.js');
});

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const request = (): ChatRequest => ({
  system: '',
  messages: [
    {
      role: 'user',
      content: 'what is on this screen?',
      images: [{ url: `data:image/png;base64,${PNG.toString('base64')}` }, { url: 'https://example.com/x.png' }],
    },
  ],
  tools: [],
  stream: true,
});

function modelWith(caps: { supportsImageToText: boolean } | undefined): FakeLanguageModelChat {
  const m = new FakeLanguageModelChat('gpt-4o').script({ steps: [{ part: new LanguageModelTextPart('a login form') }] });
  if (caps !== undefined) Object.assign(m, { capabilities: caps });
  return m;
}

async function sent(m: FakeLanguageModelChat): Promise<unknown[]> {
  const chat = new lm.VsCodeLmChatModel(m as unknown as vscode.LanguageModelChat);
  for await (const e of chat.chat(request(), new AbortController().signal)) void e;
  return m.requests[0]?.messages[0]?.content ?? [];
}

const NOTE_BOTH = new LanguageModelTextPart('what is on this screen?\n\n[2 images omitted: the VS Code language model API does not accept images]');

test('a model that says it takes images gets image parts (a web URL stays a note); others get the note', async () => {
  try {
    const vision = modelWith({ supportsImageToText: true });
    assert.equal(lm.lmTakesImages(vision as unknown as vscode.LanguageModelChat), true);
    const parts = await sent(vision);
    assert.equal(parts.length, 3);
    assert.deepEqual(parts[0], new LanguageModelTextPart('what is on this screen?'));
    assert.ok(parts[1] instanceof LanguageModelDataPart);
    assert.equal(parts[1].mimeType, 'image/png');
    assert.deepEqual(Buffer.from(parts[1].data), PNG);
    assert.deepEqual(parts[2], new LanguageModelTextPart('[1 image omitted: the VS Code language model API does not accept images]'));

    for (const caps of [{ supportsImageToText: false }, undefined]) {
      const blind = modelWith(caps);
      assert.equal(lm.lmTakesImages(blind as unknown as vscode.LanguageModelChat), false);
      assert.deepEqual(await sent(blind), [NOTE_BOTH]);
    }
    // The picker's entry says so, which is what the composer checks before sending an image.
    fake.models.push(
      modelWith({ supportsImageToText: true }),
      Object.assign(new FakeLanguageModelChat('o1-mini'), { capabilities: { supportsImageToText: false } }),
    );
    const listed = await lm.listLmModels();
    assert.deepEqual(
      listed.map((s) => [s.id, s.images]),
      [
        ['gpt-4o', true],
        ['o1-mini', false],
      ],
    );
  } finally {
    fake.models.length = 0;
  }
});
