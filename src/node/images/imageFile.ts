// Reads an image the user attaches (CLI --image, the composer): PNG, JPEG, WebP or GIF, checked by its bytes, sized for the token estimate, as a data URL part.
import type { ImagePart } from '../../engine/transcript/schema.js';
import { IMAGE_LIMITS } from '../../protocol/limits.js';
import { readRegularFile } from '../regularFile.js';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';

/** OpenAI accepts images up to 20 MB; larger ones are refused before anything is read or sent. */
export const MAX_IMAGE_BYTES = IMAGE_LIMITS.bytes;
/** Images per message. */
export const MAX_IMAGES_PER_MESSAGE = IMAGE_LIMITS.perMessage;

type ImageKind = 'png' | 'jpeg' | 'webp' | 'gif';
export type ImageRead = { readonly ok: true; readonly image: ImagePart } | { readonly ok: false; readonly error: string };

const MIME: Readonly<Record<ImageKind, string>> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };

function kindOf(b: Uint8Array): ImageKind | undefined {
  const ascii = (from: number, to: number): string => String.fromCharCode(...b.subarray(from, to));
  if (b.length >= 8 && b[0] === 0x89 && ascii(1, 4) === 'PNG') return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (b.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'gif';
  return undefined;
}

const u16be = (b: Uint8Array, i: number): number => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
const u16le = (b: Uint8Array, i: number): number => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, i: number): number => u16le(b, i) | ((b[i + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, i: number): number => (u16be(b, i) * 65536 + u16be(b, i + 2)) >>> 0;

function jpegSize(b: Uint8Array): { w: number; h: number } | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1] ?? 0;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01 || marker === 0xff) {
      i += marker === 0xff ? 1 : 2;
      continue;
    }
    const len = u16be(b, i + 2);
    // SOF0..SOF15 except DHT (c4), JPG (c8) and DAC (cc) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { h: u16be(b, i + 5), w: u16be(b, i + 7) };
    if (len < 2) return undefined;
    i += 2 + len;
  }
  return undefined;
}

/** Width and height from the header; undefined when the header is cut or inconsistent (a corrupt file). */
function sizeOf(kind: ImageKind, b: Uint8Array): { w: number; h: number } | undefined {
  let s: { w: number; h: number } | undefined;
  if (kind === 'png') s = b.length >= 24 && String.fromCharCode(...b.subarray(12, 16)) === 'IHDR' ? { w: u32be(b, 16), h: u32be(b, 20) } : undefined;
  else if (kind === 'gif') s = b.length >= 10 ? { w: u16le(b, 6), h: u16le(b, 8) } : undefined;
  else if (kind === 'jpeg') s = jpegSize(b);
  else {
    const chunk = String.fromCharCode(...b.subarray(12, 16));
    if (chunk === 'VP8X' && b.length >= 30) s = { w: u24le(b, 24) + 1, h: u24le(b, 27) + 1 };
    else if (chunk === 'VP8L' && b.length >= 25) {
      const bits = ((b[21] ?? 0) | ((b[22] ?? 0) << 8) | ((b[23] ?? 0) << 16) | ((b[24] ?? 0) << 24)) >>> 0;
      s = { w: (bits & 0x3fff) + 1, h: ((bits >> 14) & 0x3fff) + 1 };
    } else if (chunk === 'VP8 ' && b.length >= 30) s = { w: u16le(b, 26) & 0x3fff, h: u16le(b, 28) & 0x3fff };
  }
  return s !== undefined && s.w > 0 && s.h > 0 && s.w <= 100_000 && s.h <= 100_000 ? s : undefined;
}

/** The image at `path` as a part to send, or one line saying why not (naming the file). */
export async function readImageFile(path: string): Promise<ImageRead> {
  const name = basename(path);
  try {
    const st = await stat(path);
    if (st.isFile() && st.size > MAX_IMAGE_BYTES)
      return { ok: false, error: `Image ${name} is ${(st.size / 1024 / 1024).toFixed(1)} MB; at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB can be sent.` };
    const bytes = await readRegularFile(path, 'image');
    if (bytes.length > MAX_IMAGE_BYTES) return { ok: false, error: `Image ${name} is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB.` };
    return imageFromBytes(name, bytes);
  } catch (err) {
    return { ok: false, error: `Image ${name} cannot be read: ${(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''}` };
  }
}

/** The same checks for bytes that came from elsewhere (a paste, a drop). */
export function imageFromBytes(name: string, bytes: Uint8Array): ImageRead {
  const kind = kindOf(bytes);
  if (kind === undefined) return { ok: false, error: `Image ${name} is not a PNG, JPEG, WebP or GIF image.` };
  const size = sizeOf(kind, bytes);
  if (size === undefined) return { ok: false, error: `Image ${name} looks like a ${kind.toUpperCase()} but its header is damaged; it was not sent.` };
  return { ok: true, image: { url: `data:${MIME[kind]};base64,${Buffer.from(bytes).toString('base64')}`, width: size.w, height: size.h } };
}
