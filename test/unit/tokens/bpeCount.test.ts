// The packed BPE tables and their counter count what gpt-tokenizer counts (and, where gpt-tokenizer strays from tiktoken, what tiktoken does).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { packedEncoding, SPLIT_PATTERNS, type SplitEncoding } from '../../../src/engine/tokens/bpeCount.js';
import { BpeTable, PACKED_HEADER } from '../../../src/engine/tokens/bpeTable.js';
import { packRanks, type RawRanks } from '../../../src/node/bpePack.js';

const ROOT = resolve(__dirname, '..', '..', '..');
const ORDINARY = { disallowedSpecial: new Set<string>() };
const reference: Record<SplitEncoding, (text: string) => number> = {
  o200k_base: (text) => o200k(text, ORDINARY),
  cl100k_base: (text) => cl100k(text, ORDINARY),
};
const ranks = (name: SplitEncoding): RawRanks => (createRequire(__filename)(`gpt-tokenizer/bpeRanks/${name}`) as { default: RawRanks }).default;
const packed = { o200k_base: packRanks(ranks('o200k_base')), cl100k_base: packRanks(ranks('cl100k_base')) };
const ours = { o200k_base: packedEncoding(packed.o200k_base, 'o200k_base'), cl100k_base: packedEncoding(packed.cl100k_base, 'cl100k_base') };
const ENCODINGS = ['o200k_base', 'cl100k_base'] as const;

test('the pre-tokenizers are the ones gpt-tokenizer uses', () => {
  assert.equal(SPLIT_PATTERNS.o200k_base, O200K_TOKEN_SPLIT_REGEX.source);
  assert.equal(SPLIT_PATTERNS.cl100k_base, CL100K_TOKEN_SPLIT_REGEX.source);
});

test('every token of both tables is found by its own bytes, at its own rank', () => {
  const encoder = new TextEncoder();
  for (const name of ENCODINGS) {
    const all = ranks(name);
    const table = BpeTable.unpack(packed[name]);
    assert.equal(table.size, all.length);
    all.forEach((raw, rank) => {
      if (raw === undefined) return;
      const bytes = typeof raw === 'string' ? encoder.encode(raw) : Uint8Array.from(raw);
      assert.equal(table.rankOf(bytes, 0, bytes.length), rank, `${name} rank ${String(rank)}`);
    });
    // Bytes that are no token: a byte sequence longer than any token, and one only rank-0 bytes pad.
    assert.equal(table.rankOf(new Uint8Array(300).fill(120), 0, 300), -1);
    assert.equal(table.rankOf(Uint8Array.of(0, 0, 0, 0, 0, 0, 0), 0, 7), -1);
  }
});

/** Characters from the pre-tokenizers' every class: scripts, marks, digits, spaces and line ends, punctuation, emoji, lone surrogates. */
const piece = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
  fc.constantFrom(' ', '  ', '\n', '\r\n', '\t', '\n\n\n', ' \n ', "'s", "'LL", "n't", '//', '<|endoftext|>', '<|im_start|>', '123456789', '١٢٣'),
  fc.constantFrom('é', 'ß', 'Ü', 'ñ', 'ё', 'Привет', 'мир', '你好', '世界', '日本語', 'العربية', 'שלום', 'ĳ', 'ǅ', 'ʰ', 'e\u0301', '\u0300'),
  fc.constantFrom('🎉', '👍🏽', '👨‍👩‍👧', '𝔘𝔫𝔦', '\u{10FFFF}', '\uD800', '\uDFFF', 'a\uDC00b', '\u00A0', '\u2028', '\u200B', '\uFFFD'),
  fc.string({ unit: 'binary', maxLength: 8 }).map((s) => s.replaceAll('\uFEFF', '')),
);

test('random texts count the same as gpt-tokenizer in both encodings (byte order marks aside, see below)', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
      const text = parts.join('');
      for (const name of ENCODINGS) assert.equal(ours[name].countTokens(text), reference[name](text), `${name}: ${JSON.stringify(text)}`);
    }),
    { numRuns: 1500 },
  );
});

test('real texts (this repository) count the same as gpt-tokenizer, in pieces and whole', () => {
  const files = [
    join(ROOT, 'package-lock.json'),
    join(ROOT, 'README.md'),
    ...readdirSync(join(ROOT, 'src', 'engine', 'tokens')).map((f) => join(ROOT, 'src', 'engine', 'tokens', f)),
    ...readdirSync(join(ROOT, 'test', 'fixtures', 'sessions')).map((f) => join(ROOT, 'test', 'fixtures', 'sessions', f)),
  ];
  for (const file of files) {
    const text = readFileSync(file, 'utf8').slice(0, 200_000);
    for (const name of ENCODINGS) {
      assert.equal(ours[name].countTokens(text), reference[name](text), `${name}: ${file}`);
      for (let i = 0; i < text.length; i += 997) assert.equal(ours[name].countTokens(text.slice(i, i + 997)), reference[name](text.slice(i, i + 997)));
    }
  }
});

test('long pre-tokens (runs of one letter, of digits, of spaces, of symbols) grow the buffers and still count exactly', () => {
  for (const run of ['x'.repeat(3000), 'é'.repeat(1500), '9'.repeat(4000), ' '.repeat(3000), '='.repeat(2500), '你'.repeat(2000), '🎉'.repeat(800)]) {
    for (const name of ENCODINGS)
      assert.equal(ours[name].countTokens(`a ${run} b`), reference[name](`a ${run} b`), `${name}: ${run.slice(0, 4)}×${String(run.length)}`);
  }
});

test('a byte order mark counts as tiktoken counts it, where gpt-tokenizer drops the mark while merging', () => {
  // o200k_base has tokens that begin with U+FEFF's bytes (EF BB BF): "\uFEFFusing" is rank 9251, "\uFEFF\n" rank 61992,
  // "\uFEFF" alone rank 5574. tiktoken (and its port js-tiktoken) encode these texts as 1, 2, 1 and 3 tokens; gpt-tokenizer
  // decodes the bytes to look them up, TextDecoder drops the mark, and it counts 3, 4, 4 and 4.
  const cases: [string, number][] = [
    ['\uFEFFusing', 1],
    [' \uFEFF\n', 2],
    ['\uFEFF\uFEFF', 1],
    ['x\uFEFFab', 3],
  ];
  for (const [text, tokens] of cases) {
    assert.equal(ours.o200k_base.countTokens(text), tokens, JSON.stringify(text));
    assert.notEqual(reference.o200k_base(text), tokens, 'gpt-tokenizer still strays here: this case no longer shows the difference');
  }
});

test('a packed table refuses damage instead of counting wrong; the packer refuses tokens it cannot hold', () => {
  const good = packed.cl100k_base;
  assert.throws(() => BpeTable.unpack(good.subarray(0, good.length - 3)), /cut short/);
  assert.throws(() => BpeTable.unpack(Uint8Array.of(...good.subarray(0, 64), 0)), /cut short|after its last rank/);
  const extra = new Uint8Array(good.length + 1);
  extra.set(good);
  assert.throws(() => BpeTable.unpack(extra), /after its last rank/);
  const wrongMagic = good.slice(0, PACKED_HEADER + 10);
  wrongMagic[0] = 0x58;
  assert.throws(() => BpeTable.unpack(wrongMagic), /not a packed BPE table/);
  assert.throws(() => BpeTable.unpack(new Uint8Array(3)), /not a packed BPE table/);
  assert.throws(() => packRanks(['a', 'x'.repeat(256)]), /256 bytes long/);
  assert.throws(() => packRanks(['a', 'b\uD800']), /lone surrogate/);
  // Holes stay holes: no text is ever counted as the missing rank.
  const withHole = BpeTable.unpack(packRanks(['a', undefined, 'b']));
  assert.equal(withHole.size, 3);
  assert.equal(withHole.rankOf(Uint8Array.of(98), 0, 1), 2);
  assert.equal(withHole.rankOf(new Uint8Array(0), 0, 0), -1);
});

test('remembered merges answer as the merge does, before and after the memory is cleared', () => {
  const counter = packedEncoding(packed.o200k_base, 'o200k_base');
  // Rare made-up words need merges; 12,000 distinct ones pass the memory's limits more than once.
  const words = Array.from({ length: 12_000 }, (_, i) => `zq${i.toString(36)}xqv${(i * 7919).toString(36)}kj`);
  const first = words.map((w) => counter.countTokens(w));
  assert.deepEqual(
    first,
    words.map((w) => reference.o200k_base(w)),
  );
  assert.deepEqual(
    words.map((w) => counter.countTokens(w)),
    first,
  );
  // A long run cut into equal pieces by its caller: the same piece answered from memory each time.
  const run = 'x'.repeat(512);
  for (let i = 0; i < 3; i++) assert.equal(counter.countTokens(run), reference.o200k_base(run));
});
