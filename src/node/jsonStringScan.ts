// Where a JSON string ends when its bytes are exactly what JSON.stringify writes: the check a streamed import makes before it passes a tool result through as bytes (docs/importing.md#large-sessions).
import { isUtf8 } from 'node:buffer';
import { JSON_STRING_WASM } from './wasm/jsonStringWasm.js';

/**
 * How much of a line one scan sees. The scanner (wasm/jsonString.wat) reads sixteen bytes at a time from its own
 * memory, so each window of the line is copied there with a line feed after it; a string longer than a window is
 * scanned window by window, and the scanner's memory never grows with the longest line.
 */
const WINDOW = 1 << 16;
/** A window that is not the line's last stops this far before its end, so an escape (six bytes at most) is never cut. */
const ESCAPE_ROOM = 8;
const LINE_FEED = 0x0a;

/** What this module uses of the WebAssembly API (this project's type libraries do not declare it). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: unknown };
}
interface WasmGlobal {
  readonly value: number;
}
interface Scanner {
  readonly bytes: Uint8Array;
  readonly scan: (from: number, limit: number) => number;
  readonly stopped: WasmGlobal;
  readonly high: WasmGlobal;
}

/** Undefined until first used; null where Node runs without WebAssembly (`--jitless`). */
let scanner: Scanner | null | undefined;

function loaded(): Scanner | null {
  const wasm = (globalThis as unknown as { readonly WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined) return null;
  const instance = new wasm.Instance(new wasm.Module(Buffer.from(JSON_STRING_WASM, 'base64')));
  const e = instance.exports as { memory: { buffer: ArrayBuffer }; scan: Scanner['scan']; stopped: WasmGlobal; high: WasmGlobal };
  return { bytes: new Uint8Array(e.memory.buffer), scan: e.scan, stopped: e.stopped, high: e.high };
}

/**
 * Just past the JSON string whose opening quote is at `at`, when the string ends before `end` and its bytes are
 * exactly what JSON.stringify would write for its text: no raw control character, only the escapes it uses (`\"`,
 * `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and lower-case `\u00xx` for the other controls), and UTF-8 that decodes as
 * written. -1 otherwise (a string another writer spelled differently, or a damaged one): the caller then reads it
 * the ordinary way, so its text and its errors are the parser's. Always -1 where Node has no WebAssembly.
 */
export function canonicalStringEnd(buf: Uint8Array, at: number, end: number): number {
  if (scanner === undefined) scanner = loaded();
  // Without WebAssembly no string passes through: each is parsed the ordinary way, with the same result.
  const s = scanner;
  if (s === null) return -1;
  let high = false;
  let pos = at;
  let from = 1;
  for (;;) {
    const n = Math.min(end - pos, WINDOW);
    s.bytes.set(buf.subarray(pos, pos + n));
    // The line feed stops the scan at the window's end; the zeros after it keep the last read's bytes out of `high`.
    s.bytes[n] = LINE_FEED;
    s.bytes.fill(0, n + 1, n + 17);
    const last = pos + n === end;
    const r = s.scan(from, last ? n : n - ESCAPE_ROOM);
    if (s.high.value !== 0) high = true;
    if (r >= 0) {
      const stop = pos + r;
      return high && !isUtf8(buf.subarray(at, stop)) ? -1 : stop;
    }
    if (r === -1 || last) return -1;
    pos += s.stopped.value;
    from = 0;
  }
}
