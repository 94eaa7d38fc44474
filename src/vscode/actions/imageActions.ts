// The images of a message from the composer (pasted, dropped, or an `@`-mentioned image file): checked by their bytes like `capsule chat --image`, refused whole for a model without vision.
import type { ImagePart } from '../../engine/transcript/schema.js';
import { imageFromBytes, readImageFile } from '../../node/images/imageFile.js';
import { checkWorkspaceFile } from '../../node/tools/workspaceFiles.js';
import { IMAGE_LIMITS } from '../../protocol/limits.js';
import type { Attachment, ComposerImage } from '../../protocol/messages.js';
import { mentionText } from '../../protocol/pathRefs.js';
import { workspaceRoots } from '../services/workspaceFileSearch.js';
import type { Services } from './services.js';

/** An `@`-mentioned file with one of these endings is sent as an image, not read as text. */
const IMAGE_PATH = /\.(png|jpe?g|webp|gif)$/i;

function isImagePath(path: string): boolean {
  return IMAGE_PATH.test(path);
}

export type MessageImages = { readonly ok: true; readonly images: ImagePart[]; readonly attachments: Attachment[] } | { readonly ok: false };

/** The image of a data URL the schema already checked (`data:image/…;base64,…`). */
function bytesOf(dataUrl: string): Uint8Array {
  return Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
}

/**
 * Splits the message's context into images and the files read as text. With any image and a model not known to
 * take images, nothing is sent: the text goes back to the composer with one line saying why (no 400, no retry).
 * An image that cannot be used (damaged, not an image, outside the workspace) is named in one notice and the
 * message goes without it, as a file that cannot be attached does.
 */
export async function messageImages(
  d: Pick<Services, 'out' | 'chat'>,
  text: string,
  pasted: readonly ComposerImage[] | undefined,
  attachments: readonly Attachment[] | undefined,
): Promise<MessageImages> {
  const all = attachments ?? [];
  const files = all.filter((a) => isImagePath(a.path));
  const rest = all.filter((a) => !isImagePath(a.path));
  const count = (pasted?.length ?? 0) + files.length;
  if (count === 0) return { ok: true, images: [], attachments: rest };
  const refuse = (why: string): MessageImages => {
    d.out.notify('error', `Not sent: ${why}`);
    d.out.fillComposer(text);
    return { ok: false };
  };
  if (count > IMAGE_LIMITS.perMessage) return refuse(`at most ${IMAGE_LIMITS.perMessage} images per message (this one has ${count}).`);
  const id = d.chat.currentModelId();
  const model = d.chat.models.find((m) => m.id === id);
  if (model?.images !== true) {
    const name = model?.label ?? id ?? 'no model';
    const why =
      model?.provider === 'lm'
        ? 'VS Code does not report that it takes images, or this VS Code cannot send images to its models'
        : 'it is not known to accept images';
    return refuse(`the model ${name} cannot see images (${why}). Remove the images, or pick a model that takes them.`);
  }
  const images: ImagePart[] = [];
  const problems: string[] = [];
  for (const p of pasted ?? []) {
    const r = imageFromBytes(p.name, bytesOf(p.dataUrl));
    if (r.ok) images.push(r.image);
    else problems.push(r.error);
  }
  const roots = workspaceRoots();
  for (const a of files) {
    const check = roots.length === 0 ? { ok: false as const, message: 'no workspace folder is open' } : await checkWorkspaceFile(roots, a.path);
    if (!check.ok) {
      problems.push(`${mentionText(a)}: ${check.message}`);
      continue;
    }
    const r = await readImageFile(check.real);
    if (r.ok) images.push(r.image);
    else problems.push(r.error);
  }
  if (problems.length > 0) d.out.notify('warning', `Not attached — ${problems.join('; ')}`);
  return { ok: true, images, attachments: rest };
}
