// `capsule chat --image PATH…`: the images of the message, checked before anything is sent (type, size, count, a model that takes images).
import type { ImagePart } from '../../engine/transcript/schema.js';
import { modelTakesImages } from '../../engine/transcript/images.js';
import { MAX_IMAGES_PER_MESSAGE, readImageFile } from '../../node/images/imageFile.js';
import { CliError, type Flags } from '../args.js';

export async function chatImages(flags: Flags, model: string, retry: boolean): Promise<ImagePart[]> {
  const raw = flags.image;
  const paths = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  if (paths.length === 0) return [];
  if (retry) throw new CliError('--retry sends the failed turn again with its own images: give no --image with it');
  if (paths.length > MAX_IMAGES_PER_MESSAGE) throw new CliError(`at most ${MAX_IMAGES_PER_MESSAGE} images per message (got ${paths.length})`);
  if (flags.vision !== true && !modelTakesImages(model)) {
    throw new CliError(`the model ${model} is not known to accept images, so nothing was sent; if it does, add --vision (or send the message without --image)`);
  }
  const out: ImagePart[] = [];
  for (const p of paths) {
    const r = await readImageFile(p);
    if (!r.ok) throw new CliError(r.error);
    out.push(r.image);
  }
  return out;
}
