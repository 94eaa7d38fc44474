// Packs gpt-tokenizer's BPE ranks into the form BpeTable reads (docs/performance.md#tokenizer): run by the build, and from sources on first count.
import { MAX_TOKEN_BYTES, PACKED_HEADER, PACKED_MAGIC } from '../engine/tokens/bpeTable.js';

/** The ranks as gpt-tokenizer ships them: a token's text, or its bytes when they are not UTF-8 text. */
export type RawRanks = readonly (string | readonly number[] | undefined)[];

/**
 * Text tokens are encoded as UTF-8, byte tokens copied as they are: the few that begin with a byte order mark stay
 * whole, as the provider's tokenizer has them (gpt-tokenizer drops the mark when it looks one up).
 */
export function packRanks(ranks: RawRanks): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  let size = PACKED_HEADER;
  for (let rank = 0; rank < ranks.length; rank++) {
    const raw = ranks[rank];
    if (typeof raw === 'string' && /\p{Cs}/u.test(raw)) throw new Error(`BPE rank ${String(rank)} holds a lone surrogate`);
    const bytes = raw === undefined ? new Uint8Array(0) : typeof raw === 'string' ? encoder.encode(raw) : Uint8Array.from(raw);
    if (bytes.length > MAX_TOKEN_BYTES) throw new Error(`BPE rank ${String(rank)} is ${String(bytes.length)} bytes long (at most ${String(MAX_TOKEN_BYTES)})`);
    parts.push(bytes);
    size += 1 + bytes.length;
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, PACKED_MAGIC, true);
  view.setUint32(4, ranks.length, true);
  let at = PACKED_HEADER;
  for (const bytes of parts) {
    out[at++] = bytes.length;
    out.set(bytes, at);
    at += bytes.length;
  }
  return out;
}
