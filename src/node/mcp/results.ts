// An MCP tool result as the text the model reads: text, resource links, embedded resources, structuredContent; images become image parts for a vision model, and otherwise (with other binaries) placeholders whose originals are archived.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ImagePart } from '../../engine/transcript/schema.js';
import { imageFromBytes, MAX_IMAGE_BYTES, MAX_IMAGES_PER_MESSAGE } from '../images/imageFile.js';

interface Binary {
  readonly kind: 'image' | 'audio' | 'blob';
  readonly mimeType: string;
  /** Base64, as the server sent it. */
  readonly data: string;
}

export interface ConvertedResult {
  readonly text: string;
  readonly isError: boolean;
  /** Parts the model does not read as text (kept whole in the evidence archive). */
  readonly binaries: readonly Binary[];
  /** Images the model sees as image parts (vision models only); their originals are among `binaries` too. */
  readonly images: readonly ImagePart[];
}

export interface ConvertOptions {
  /** The model takes image parts: images are shown to it, not only described. */
  readonly vision?: boolean;
}

/** An image a vision model can be shown: a PNG, JPEG, WebP or GIF within the size OpenAI accepts, checked by its bytes. */
function asImagePart(c: { readonly mimeType: string; readonly data: string }): ImagePart | string {
  if (c.data.length > (MAX_IMAGE_BYTES * 4) / 3 + 4) return `larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB`;
  const read = imageFromBytes('from the tool', Buffer.from(c.data, 'base64'));
  return read.ok ? read.image : 'not a PNG, JPEG, WebP or GIF image with a sound header';
}

function sizeOf(base64: string): string {
  const pad = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const bytes = Math.max(0, Math.floor((base64.length * 3) / 4) - pad);
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

/** `archived` is the id the originals are archived under, named in each placeholder so the model can ask for it. */
export function convertResult(r: CallToolResult, archived?: string, opts: ConvertOptions = {}): ConvertedResult {
  const parts: string[] = [];
  const binaries: Binary[] = [];
  const images: ImagePart[] = [];
  const where = archived === undefined ? 'not shown' : `not shown; the original is archived as ${archived}`;
  const kept = archived === undefined ? '' : `; the original is archived as ${archived}`;
  for (const c of r.content ?? []) {
    switch (c.type) {
      case 'text':
        parts.push(c.text);
        break;
      case 'image': {
        binaries.push({ kind: 'image', mimeType: c.mimeType, data: c.data });
        const part = opts.vision === true && images.length < MAX_IMAGES_PER_MESSAGE ? asImagePart(c) : undefined;
        if (typeof part === 'object') {
          images.push(part);
          parts.push(`[image ${images.length} (${c.mimeType}, ${part.width ?? '?'}×${part.height ?? '?'}): shown to you after the tool results${kept}]`);
        } else parts.push(`[image ${c.mimeType}, ${sizeOf(c.data)}: ${part === undefined ? where : `${where} (${part})`}]`);
        break;
      }
      case 'audio':
        binaries.push({ kind: 'audio', mimeType: c.mimeType, data: c.data });
        parts.push(`[audio ${c.mimeType}, ${sizeOf(c.data)}: ${where}]`);
        break;
      case 'resource_link':
        parts.push(
          `[resource link] ${c.name}${c.title === undefined ? '' : ` (${c.title})`}: ${c.uri}${c.mimeType === undefined ? '' : ` (${c.mimeType})`}${c.description === undefined ? '' : ` — ${c.description}`}`,
        );
        break;
      case 'resource': {
        const res = c.resource;
        if ('text' in res && typeof res.text === 'string') parts.push(`[resource ${res.uri}]\n${res.text}`);
        else if ('blob' in res && typeof res.blob === 'string') {
          binaries.push({ kind: 'blob', mimeType: res.mimeType ?? 'application/octet-stream', data: res.blob });
          parts.push(`[resource ${res.uri} ${res.mimeType ?? 'binary'}, ${sizeOf(res.blob)}: ${where}]`);
        }
        break;
      }
    }
  }
  const text = parts.join('\n');
  if (r.structuredContent !== undefined) {
    const json = JSON.stringify(r.structuredContent);
    // Servers usually send the same data as text too; it is shown once.
    if (!text.includes(json) && !sameJson(text, r.structuredContent) && !leavesIn(text, r.structuredContent)) parts.push(`structuredContent: ${json}`);
  }
  const out = parts.join('\n');
  return {
    text: out === '' ? (r.isError === true ? 'The tool reported an error without a message.' : '(no content)') : out,
    isError: r.isError === true,
    binaries,
    images,
  };
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/** Every value of the structured data already appears in the text (the filesystem server sends `{content: <the text>}`). */
function leavesIn(text: string, value: unknown, depth = 0): boolean {
  if (depth > 20) return false;
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'string') return text.includes(value);
  if (typeof value === 'number') return text.includes(String(value));
  if (Array.isArray(value)) return value.every((v) => leavesIn(text, v, depth + 1));
  if (typeof value === 'object') return Object.values(value).every((v) => leavesIn(text, v, depth + 1));
  return false;
}
