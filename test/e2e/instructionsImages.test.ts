// End to end in code-server: a workspace with an AGENTS.md and an image pasted into the composer — the request the provider receives carries the AGENTS.md text in its system prompt and the image as an image part.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ChatBody } from '../fakes/openaiServer.js';
import { screenshot } from './browser.js';
import { ChatView, waitUntil } from './chatView.js';
import { NOT_STARTED, startE2e, step, stopE2e } from './session.js';
import { openWorkbenchWithCapsule, widenSideBar } from './workbench.js';

/** A model id Capsule knows to take images. */
const MODEL = 'gpt-4o';
const AGENTS = '# Project rules\n\nAlways run `npm run lint` before you say a change is done. MARKER-AGENTS-E2E-4411\n';
/** A real 1×1 PNG. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The page's DOM constructors the paste needs (this file compiles without the DOM library). */
interface BrowserGlobals {
  atob(s: string): string;
  readonly DataTransfer: new () => { readonly items: { add(file: unknown): void } };
  readonly File: new (parts: readonly Uint8Array[], name: string, opts: { readonly type: string }) => unknown;
  readonly ClipboardEvent: new (type: string, init: Readonly<Record<string, unknown>>) => Event;
}

let { fake, server, page } = NOT_STARTED;

before(async () => {
  ({ fake, server, page } = await startE2e({
    fake: { window: 64_000, models: [{ id: MODEL, contextLength: 64_000 }], fallback: () => ({ text: 'A single pixel.' }) },
    settings: (url) => ({
      'capsule.provider.baseUrl': url,
      'capsule.model.id': MODEL,
      'capsule.model.contextWindow': 64_000,
      'capsule.model.maxOutputTokens': 4000,
    }),
    files: { 'AGENTS.md': AGENTS, 'README.md': '# sample\n' },
  }));
});

after(stopE2e);

/** The system prompt and the image parts of the last user message of a request. */
function seen(body: ChatBody): { system: string; images: string[] } {
  const system = body.messages
    .filter((m) => m.role === 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
  const user = body.messages.filter((m) => m.role === 'user').pop();
  const parts = Array.isArray(user?.content) ? (user.content as readonly { type?: string; image_url?: { url?: string } }[]) : [];
  return { system, images: parts.filter((p) => p.type === 'image_url').map((p) => p.image_url?.url ?? '') };
}

test('AGENTS.md in the system prompt and a pasted image as an image part', { timeout: 300_000 }, async () => {
  const s = server;
  const f = fake;
  assert.ok(s && f);
  const chat = new ChatView(page);
  await step('22-01-open', async () => {
    await openWorkbenchWithCapsule(page, s.url);
    await chat.ready(60_000);
    await widenSideBar(page, 120);
  });

  await step('22-02-paste-image', async () => {
    await chat.composer.click();
    // What the browser hands the page for a pasted screenshot: a ClipboardEvent whose data holds one image file.
    await chat.composer.evaluate((el, b64) => {
      const w = globalThis as unknown as BrowserGlobals;
      const bytes = Uint8Array.from(w.atob(b64), (c) => c.charCodeAt(0));
      const dt = new w.DataTransfer();
      dt.items.add(new w.File([bytes], 'image.png', { type: 'image/png' }));
      el.dispatchEvent(new w.ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    }, PNG_BASE64);
    await chat.frame.locator('.image-tray .chip img.thumb').waitFor({ timeout: 30_000 });
    await chat.composer.fill('What is in this image?');
    await screenshot(page, '22-02-pasted-image');
    await chat.composer.press('Enter');
    await waitUntil('a request with an image', () => f.chatRequests.some((r) => seen(r.body as ChatBody).images.length > 0), 60_000);
    await chat.answer('A single pixel.').waitFor({ timeout: 60_000 });
    await chat.idle();
  });

  const request = f.chatRequests.find((r) => seen(r.body as ChatBody).images.length > 0);
  assert.ok(request);
  const got = seen(request.body as ChatBody);
  assert.ok(got.system.includes('MARKER-AGENTS-E2E-4411'), 'the AGENTS.md text is in the system prompt');
  assert.ok(got.system.includes('Always run `npm run lint` before you say a change is done.'), 'verbatim');
  assert.deepEqual(got.images, [`data:image/png;base64,${PNG_BASE64}`], 'the pasted image, byte for byte, as an image_url part');
  assert.equal(await chat.frame.locator('.image-tray .chip').count(), 0, 'the sent image left the composer');
});
