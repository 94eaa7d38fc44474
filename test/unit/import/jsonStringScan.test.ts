// The string check runs in WebAssembly over windows of a line: strings longer than a window, escapes and stops at its edges, and bytes past a first window are checked alike; the shipped bytes are the assembled source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalStringEnd } from '../../../src/node/jsonStringScan.js';
import { JSON_STRING_WASM } from '../../../src/node/wasm/jsonStringWasm.js';

const REPO = join(__dirname, '..', '..', '..');
const WINDOW = 1 << 16;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const PIECES = ['\n', '\t', '"', '\\', '\u0001', '\u001f', 'é', '\u{1F600}', 'abcdefghijklmnopqrstuvwxyz0123456789', ' ', '{}'];

function longText(r: () => number, chars: number): string {
  const out: string[] = [];
  let n = 0;
  while (n < chars) {
    const p = PIECES[Math.floor(r() * PIECES.length)] ?? '';
    out.push(p);
    n += p.length;
  }
  return out.join('');
}

/** `json` as the value of a member in a line, after `pad` bytes, with the line's newline after it. */
function lineWith(json: string, pad: number): { buf: Buffer; at: number; stop: number } {
  const head = `${'x'.repeat(pad)}{"content":`;
  const buf = Buffer.from(`${head}${json},"uuid":"u"}\n`);
  const at = Buffer.byteLength(head);
  return { buf, at, stop: at + Buffer.byteLength(json) };
}

test('a string several windows long ends where JSON.stringify ended it, from any start', () => {
  const r = rng(11);
  for (let k = 0; k < 24; k++) {
    const json = JSON.stringify(longText(r, WINDOW / 2 + Math.floor(r() * WINDOW * 3)));
    const { buf, at, stop } = lineWith(json, Math.floor(r() * 4096));
    assert.equal(canonicalStringEnd(buf, at, buf.length - 1), stop);
    // Cut short anywhere: it never ends.
    const cut = at + 1 + Math.floor(r() * (stop - at - 1));
    assert.equal(canonicalStringEnd(buf, at, cut), -1);
  }
});

test('an escape or a closing quote at every place around a window edge is read whole', () => {
  for (const piece of ['\\n', '\\"', '\\\\', '\\u001f', '\\u0000', 'é', '😀']) {
    for (let shift = -12; shift <= 12; shift++) {
      // The piece starts `shift` bytes from where the first window ends (the quote is at 0).
      const before = 'a'.repeat(WINDOW + shift - 1);
      const json = `"${before}${piece}tail"`;
      const { buf, at, stop } = lineWith(json, 0);
      assert.equal(canonicalStringEnd(buf, at, buf.length - 1), stop, `${piece} at ${shift}`);
      // The same string closed right after the piece, and right before it.
      const closed = lineWith(`"${before}${piece}"`, 0);
      assert.equal(canonicalStringEnd(closed.buf, closed.at, closed.buf.length - 1), closed.stop, `${piece} closing at ${shift}`);
      const early = lineWith(`"${before}"`, 0);
      assert.equal(canonicalStringEnd(early.buf, early.at, early.buf.length - 1), early.stop);
    }
  }
});

test('what JSON.stringify never writes is refused past the first window as in it', () => {
  const r = rng(12);
  const bad = ['\\/', '\\u0041', '\\u001F', '\\u000a', '\\ud83d\\ude00', '\\x41', '\t', '\u0001'];
  for (const b of bad) {
    for (let k = 0; k < 6; k++) {
      const place = Math.floor(r() * WINDOW * 3);
      const json = `"${'b'.repeat(place)}${b}${'c'.repeat(100)}"`;
      const { buf, at } = lineWith(json, Math.floor(r() * 100));
      assert.equal(canonicalStringEnd(buf, at, buf.length - 1), -1, `${JSON.stringify(b)} at ${place}`);
    }
  }
  // A byte that is not UTF-8, only in the first window or only in the third.
  for (const bytes of [[0xff], [0xc3], [0xed, 0xa0, 0x80]]) {
    for (const [first, then] of [
      [5, WINDOW * 2],
      [WINDOW * 2 + 5, 10],
    ]) {
      const head = Buffer.from(`{"content":"${'d'.repeat(first ?? 0)}`);
      const buf = Buffer.concat([head, Buffer.from(bytes), Buffer.from(`${'e'.repeat(then ?? 0)}"}\n`)]);
      assert.equal(canonicalStringEnd(buf, head.indexOf('"', 10), buf.length - 1), -1, Buffer.from(bytes).toString('hex'));
    }
  }
  // The last line of a file, with no newline after it.
  const json = JSON.stringify(longText(r, WINDOW * 2));
  const noNewline = Buffer.from(json);
  assert.equal(canonicalStringEnd(noNewline, 0, noNewline.length), noNewline.length);
  assert.equal(canonicalStringEnd(noNewline, 0, noNewline.length - 1), -1);
});

test('the shipped WebAssembly is jsonString.wat assembled', async () => {
  const mod = (await import(join(REPO, 'scripts', 'wasm.mjs'))) as { wasmModuleSource(wat: string): Promise<string>; WAT: string; MODULE: string };
  const current = readFileSync(mod.MODULE, 'utf8');
  assert.equal(current, await mod.wasmModuleSource(readFileSync(mod.WAT, 'utf8')), 'src/node/wasm/jsonStringWasm.ts is out of date: run `npm run wasm`');
  const wasm = (globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly;
  assert.ok(wasm.validate(Buffer.from(JSON_STRING_WASM, 'base64')));
});
