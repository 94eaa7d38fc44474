// Images in the composer, in Chromium: a pasted or dropped image becomes a thumbnail chip (× removes it) and goes with the message; wrong type, size and count, and a model without vision, are refused in one line with the draft kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { models, snapshot } from '../unit/protocol/samples.js';
import { browserForFile, type Harness, ofType, scenario } from './harness.js';

const browser = browserForFile();

/** A 1×1 PNG: real bytes, so the host's check by header would take it too. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Browser-side: a DataTransfer holding files built from `specs` (`png` is the PNG above; `size` makes a blank file that large). */
function transfer(specs: readonly { readonly name: string; readonly type: string; readonly png?: boolean; readonly size?: number }[]): string {
  return `(() => {
    const dt = new DataTransfer();
    const png = Uint8Array.from(atob(${JSON.stringify(PNG_BASE64)}), (c) => c.charCodeAt(0));
    for (const s of ${JSON.stringify(specs)}) dt.items.add(new File([s.png ? png : new Uint8Array(s.size ?? 4)], s.name, { type: s.type }));
    return dt;
  })()`;
}

async function paste(h: Harness, specs: Parameters<typeof transfer>[0]): Promise<void> {
  await h.value(
    `(document.querySelector('.composer textarea').dispatchEvent(new ClipboardEvent('paste', { clipboardData: ${transfer(specs)}, bubbles: true, cancelable: true })), true)`,
  );
}

async function drop(h: Harness, specs: Parameters<typeof transfer>[0]): Promise<void> {
  await h.value(
    `(document.querySelector('.composer').dispatchEvent(new DragEvent('drop', { dataTransfer: ${transfer(specs)}, bubbles: true, cancelable: true })), true)`,
  );
}

const chips = (h: Harness): Promise<string[]> => h.value("[...document.querySelectorAll('.image-tray .chip')].map((c) => c.title)");
const errorLine = (h: Harness): Promise<string> => h.value("document.querySelector('.image-error').textContent");

async function typeAndSend(h: Harness, text: string): Promise<void> {
  await h.page.locator('.composer textarea').fill(text);
  await h.page.locator('.composer textarea').press('Enter');
}

test('a pasted screenshot shows as a thumbnail chip and goes with the message as a PNG data URL; the tray empties', async () => {
  await scenario(browser, 'image-paste', async (h) => {
    await h.send(snapshot);
    await paste(h, [{ name: 'image.png', type: 'image/png', png: true }]);
    await h.until("document.querySelectorAll('.image-tray .chip img.thumb').length === 1", 'the thumbnail');
    assert.deepEqual(await chips(h), ['pasted-1.png'], 'a pasted screenshot gets a name that tells chips apart');
    assert.match(await h.value<string>("document.querySelector('.image-tray .chip img').getAttribute('src')"), /^data:image\/png;base64,/);
    assert.equal(await h.value("document.querySelector('.composer textarea').value"), '', 'the image did not land in the text as a file name');
    await typeAndSend(h, 'What is in this screenshot?');
    const sends = await ofType(h, 'send');
    assert.equal(sends.length, 1);
    assert.equal(sends[0]?.text, 'What is in this screenshot?');
    assert.deepEqual(sends[0]?.images, [{ name: 'pasted-1.png', dataUrl: `data:image/png;base64,${PNG_BASE64}` }]);
    assert.deepEqual(await chips(h), [], 'sent images leave the tray');
    await h.send({ type: 'itemsAppended', items: [{ id: 'u_img', kind: 'user', text: 'What is in this screenshot?', images: 2 }] });
    await h.until("document.querySelector('.user-images') !== null", 'the image line of the message');
    assert.equal(await h.value("document.querySelector('.user-images').textContent"), 'with 2 images');
    assert.deepEqual(h.errors, []);
  });
});

test('dropped images: the × removes one; a slash command leaves them for the next message', async () => {
  await scenario(browser, 'image-drop', async (h) => {
    await h.send(snapshot);
    await drop(h, [
      { name: 'a.png', type: 'image/png', png: true },
      { name: 'b.png', type: 'image/png', png: true },
    ]);
    await h.until("document.querySelectorAll('.image-tray .chip').length === 2", 'two chips');
    await h.page.locator('.image-tray button[aria-label="Remove a.png"]').click();
    assert.deepEqual(await chips(h), ['b.png']);
    await typeAndSend(h, '/budget');
    await typeAndSend(h, 'and this one?');
    const sends = await ofType(h, 'send');
    assert.deepEqual(
      sends.map((s) => [s.text, s.images?.map((i) => i.name)]),
      [
        ['/budget', undefined],
        ['and this one?', ['b.png']],
      ],
    );
  });
});

test('an unsupported type, a 21 MB image and an eleventh image are refused in one line; the others stay', async () => {
  await scenario(browser, 'image-limits', async (h) => {
    await h.send(snapshot);
    await paste(h, [{ name: 'notes.txt', type: 'text/plain' }]);
    assert.match(await errorLine(h), /^Image notes\.txt is not a PNG, JPEG, WebP or GIF image \(text\/plain\)\.$/);
    await paste(h, [{ name: 'huge.png', type: 'image/png', size: 21 * 1024 * 1024 }]);
    assert.match(await errorLine(h), /^Image huge\.png is 21\.0 MB; at most 20 MB can be sent\.$/);
    assert.deepEqual(await chips(h), []);
    await drop(
      h,
      Array.from({ length: 11 }, (_, i) => ({ name: `s${i}.png`, type: 'image/png', png: true })),
    );
    await h.until("document.querySelectorAll('.image-tray .chip').length === 10", 'ten chips');
    assert.match(await errorLine(h), /^At most 10 images per message; s10\.png was not added\.$/);
    assert.deepEqual(await ofType(h, 'send'), [], 'nothing was sent');
  });
});

test('a model without vision: nothing is sent, one line says why, the draft and the image stay', async () => {
  await scenario(browser, 'image-no-vision', async (h) => {
    const lm = models.find((m) => m.provider === 'lm');
    assert.ok(lm && lm.images !== true);
    await h.send({ ...snapshot, currentModelId: lm.id });
    await paste(h, [{ name: 'shot.png', type: 'image/png', png: true }]);
    await h.until("document.querySelectorAll('.image-tray .chip').length === 1", 'the chip');
    await typeAndSend(h, 'Describe it');
    assert.deepEqual(await ofType(h, 'send'), [], 'nothing was sent');
    assert.equal(await errorLine(h), `Not sent: ${lm.label} cannot see images. Remove the images, or pick a model that takes them.`);
    assert.equal(await h.value("document.querySelector('.composer textarea').value"), 'Describe it', 'the draft stays');
    assert.deepEqual(await chips(h), ['shot.png']);
    // Picking a model that sees images lets the same message go.
    await h.send(snapshot);
    await h.page.locator('.composer textarea').press('Enter');
    const sends = await ofType(h, 'send');
    assert.deepEqual(
      sends.map((s) => s.images?.map((i) => i.name)),
      [['shot.png']],
    );
  });
});
