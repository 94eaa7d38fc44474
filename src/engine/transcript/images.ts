// Images in the model input (docs/user/chat.md#images): which models take them, and the one-line placeholder an image becomes once a compaction has passed it.
import type { ImagePart } from './schema.js';

/** Model ids known to accept image parts; anything else needs the user's word (CLI `--vision`). */
const VISION_MODELS: readonly RegExp[] = [
  /gpt-4o/,
  /gpt-4\.1/,
  /gpt-4-(turbo|vision)/,
  /gpt-4\.5/,
  /gpt-5/,
  /(^|\/)o[134](-|$)(?!.*mini-?high)/,
  /claude-(3|sonnet-4|opus-4|haiku-4|.*-4)/,
  /gemini/,
  /llava|bakllava|moondream|minicpm-v/,
  /qwen[\d.]*-?vl|qwen.*-vl/,
  /pixtral|mistral-(small|medium)-(3|latest)/,
  /llama-?3\.2.*vision|llama-?4/,
  /gemma-?3/,
  /grok-.*vision|grok-4/,
];

export function modelTakesImages(model: string): boolean {
  const m = model.toLowerCase();
  return VISION_MODELS.some((re) => re.test(m));
}

/** The media type of a data URL, e.g. `image/png`. */
function mediaTypeOf(img: ImagePart): string {
  return /^data:([^;,]+)/.exec(img.url)?.[1] ?? 'image';
}

/** What an image becomes in the model input after a compaction: one line naming the entry that holds the original. */
export function imagePlaceholder(entryId: string, img: ImagePart, index: number): string {
  const size = img.width !== undefined && img.height !== undefined ? ` ${img.width}×${img.height}` : '';
  return `[image ${index + 1} of message ${entryId} (${mediaTypeOf(img)}${size}) left the model input at a compaction; the original stays in the transcript]`;
}
