// An MCP tool result as the text the model reads: text, resource links, embedded resources, structuredContent; images and binaries become placeholders whose originals are archived.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface Binary {
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
}

function sizeOf(base64: string): string {
  const pad = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const bytes = Math.max(0, Math.floor((base64.length * 3) / 4) - pad);
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

/** `archived` is the id the originals are archived under, named in each placeholder so the model can ask for it. */
export function convertResult(r: CallToolResult, archived?: string): ConvertedResult {
  const parts: string[] = [];
  const binaries: Binary[] = [];
  const where = archived === undefined ? 'not shown' : `not shown; the original is archived as ${archived}`;
  for (const c of r.content ?? []) {
    switch (c.type) {
      case 'text':
        parts.push(c.text);
        break;
      case 'image':
        binaries.push({ kind: 'image', mimeType: c.mimeType, data: c.data });
        parts.push(`[image ${c.mimeType}, ${sizeOf(c.data)}: ${where}]`);
        break;
      case 'audio':
        binaries.push({ kind: 'audio', mimeType: c.mimeType, data: c.data });
        parts.push(`[audio ${c.mimeType}, ${sizeOf(c.data)}: ${where}]`);
        break;
      case 'resource_link':
        parts.push(`[resource link] ${c.name}${c.title === undefined ? '' : ` (${c.title})`}: ${c.uri}${c.mimeType === undefined ? '' : ` (${c.mimeType})`}${c.description === undefined ? '' : ` — ${c.description}`}`);
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
  return { text: out === '' ? (r.isError === true ? 'The tool reported an error without a message.' : '(no content)') : out, isError: r.isError === true, binaries };
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
