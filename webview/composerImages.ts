// Images in the composer: pasted or dropped files become thumbnail chips (× removes one), checked for type, size and count, and refused before sending to a model without vision.
import { IMAGE_LIMITS, IMAGE_MEDIA_TYPES } from '../src/protocol/limits.js';
import type { Attachment, ComposerImage } from '../src/protocol/messages.js';
import { button, el } from './dom.js';

/** An `@`-mentioned file with one of these endings goes as an image (the host reads it). */
const IMAGE_PATH = /\.(png|jpe?g|webp|gif)$/i;

export function isImagePath(path: string): boolean {
  return IMAGE_PATH.test(path);
}

/** What the composer knows of the chosen model: its name and whether it takes images. */
export interface ModelSight {
  readonly label: string;
  readonly images?: boolean;
}

const MB = 1024 * 1024;

/** Why `file` cannot be added next to `count` images already there, in one line; undefined when it can. */
function imageRefusal(file: Pick<File, 'name' | 'type' | 'size'>, count: number): string | undefined {
  const name = file.name === '' ? 'The pasted image' : `Image ${file.name}`;
  if (!IMAGE_MEDIA_TYPES.includes(file.type)) return `${name} is not a PNG, JPEG, WebP or GIF image${file.type === '' ? '' : ` (${file.type})`}.`;
  if (file.size > IMAGE_LIMITS.bytes) return `${name} is ${(file.size / MB).toFixed(1)} MB; at most ${IMAGE_LIMITS.bytes / MB} MB can be sent.`;
  if (count >= IMAGE_LIMITS.perMessage) return `At most ${IMAGE_LIMITS.perMessage} images per message; ${name.replace(/^Image /, '')} was not added.`;
  return undefined;
}

/** A pasted file has no useful name ("image.png" at best); numbered ones tell the chips apart. */
function nameFor(file: File, n: number): string {
  const ext = file.type.replace(/^image\//, '').replace('jpeg', 'jpg');
  return file.name !== '' && file.name !== `image.${ext}` ? file.name : `pasted-${n}.${ext}`;
}

export class ImageTray {
  readonly element: HTMLElement;
  readonly #chips: HTMLElement;
  readonly #error: HTMLElement;
  #images: ComposerImage[] = [];
  /** Files still being read; a send waits for none of them, so it is refused until they are in. */
  #reading = 0;
  #pasted = 0;
  #model: ModelSight | undefined;

  constructor() {
    this.#chips = el('div', { className: 'attached images hidden', attrs: { role: 'list', 'aria-label': 'Attached images' } });
    this.#chips.addEventListener('click', (e) => {
      const btn = e.target instanceof Element ? e.target.closest('button[data-image]') : null;
      const i = btn instanceof HTMLElement ? Number(btn.dataset.image) : NaN;
      if (!Number.isInteger(i)) return;
      this.#images = this.#images.filter((_, j) => j !== i);
      this.#clearError();
      this.#render();
    });
    this.#error = el('div', { className: 'image-error hidden', attrs: { role: 'alert' } });
    this.element = el('div', { className: 'image-tray' }, [this.#chips, this.#error]);
  }

  get count(): number {
    return this.#images.length;
  }

  setModel(model: ModelSight | undefined): void {
    this.#model = model;
  }

  /** Adds the image files among `files`; true when there were files at all (the caller then keeps them from the textarea). */
  add(files: readonly File[]): boolean {
    if (files.length === 0) return false;
    const problems: string[] = [];
    for (const f of files) {
      const why = imageRefusal(f, this.#images.length + this.#reading);
      if (why !== undefined) {
        problems.push(why);
        continue;
      }
      this.#reading++;
      const name = nameFor(f, ++this.#pasted);
      const reader = new FileReader();
      reader.addEventListener('loadend', () => {
        this.#reading--;
        const url = typeof reader.result === 'string' ? reader.result : '';
        if (reader.error !== null || !url.startsWith('data:image/')) this.#showError(`Image ${name} could not be read.`);
        else this.#images.push({ name, dataUrl: url });
        this.#render();
      });
      reader.readAsDataURL(f);
    }
    if (problems.length > 0) this.#showError(problems.join(' '));
    else this.#clearError();
    return true;
  }

  /**
   * The images to send with `text`, or undefined when the message must not go (the reason is shown, and the draft
   * and the images stay). A slash command takes no images: they wait for the next message.
   */
  forSend(text: string, attachments: readonly Attachment[]): ComposerImage[] | undefined {
    if (text.startsWith('/')) return [];
    const mentioned = attachments.filter((a) => isImagePath(a.path)).length;
    if (this.#images.length + mentioned + this.#reading === 0) return [];
    if (this.#reading > 0) return this.#refuse('An image is still being read; send again in a moment.');
    if (this.#images.length + mentioned > IMAGE_LIMITS.perMessage) return this.#refuse(`At most ${IMAGE_LIMITS.perMessage} images per message; remove some.`);
    if (this.#model?.images !== true) {
      const name = this.#model?.label ?? 'the chosen model';
      return this.#refuse(`Not sent: ${name} cannot see images. Remove the images, or pick a model that takes them.`);
    }
    return [...this.#images];
  }

  /** The message went: its images leave the tray. */
  clear(): void {
    this.#images = [];
    this.#clearError();
    this.#render();
  }

  #refuse(text: string): undefined {
    this.#showError(text);
    return undefined;
  }

  #showError(text: string): void {
    this.#error.textContent = text;
    this.#error.classList.remove('hidden');
  }

  #clearError(): void {
    this.#error.textContent = '';
    this.#error.classList.add('hidden');
  }

  #render(): void {
    this.#chips.classList.toggle('hidden', this.#images.length === 0);
    this.#chips.replaceChildren(
      ...this.#images.map((img, i) =>
        el('div', { className: 'chip attachment image', attrs: { role: 'listitem', title: img.name } }, [
          el('img', { className: 'thumb', attrs: { src: img.dataUrl, alt: '' } }),
          el('span', { className: 'chip-text', text: img.name }),
          button({ icon: 'close', label: `Remove ${img.name}`, className: 'chip-remove', data: { image: String(i) } }),
        ]),
      ),
    );
  }
}

/** The files of a paste or a drop (a screenshot pasted arrives as one file). */
export function filesOf(data: DataTransfer | null): File[] {
  if (data === null) return [];
  const out: File[] = [];
  for (const item of Array.from(data.items)) {
    if (item.kind !== 'file') continue;
    const f = item.getAsFile();
    if (f !== null) out.push(f);
  }
  return out.length > 0 ? out : Array.from(data.files);
}
