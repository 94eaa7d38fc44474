// Counting stays linear on long runs of one character, exact at safe boundaries, and long counts yield and abort.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { counterForEncoding } from '../../../src/node/tokenCounter.js';
import { countTextAsync } from '../../../src/engine/tokens/tokenizer.js';
import { PIECE_CHARS, textPieces } from '../../../src/engine/tokens/textPieces.js';
import { TOKENIZER_MARGIN } from '../../../src/engine/tokens/estimate.js';

const ORDINARY = { disallowedSpecial: new Set<string>() };
const EXACT = { o200k_base: (t: string) => countO200k(t, ORDINARY), cl100k_base: (t: string) => countCl100k(t, ORDINARY) } as const;

function chunkedCount(exact: (t: string) => number, text: string): number {
  let n = 0;
  for (const [s, e] of textPieces(text)) n += exact(text.slice(s, e));
  return n;
}

test('1 MB of one letter finishes and equals the chunked count', () => {
  const text = 'x'.repeat(1 << 20);
  const counter = counterForEncoding('o200k_base');
  const n = counter.count(text);
  assert.equal(n, chunkedCount(EXACT.o200k_base, text));
  assert.ok(n > 0);
});

test('pieces cover the text in order, none longer than the window, none splitting a surrogate pair', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 3000 }), fc.integer({ min: 4, max: 700 }), (text, window) => {
      let at = 0;
      for (const [s, e] of textPieces(text, window)) {
        assert.equal(s, at);
        assert.ok(e > s && e - s <= window);
        const c = text.charCodeAt(e);
        assert.ok(!(c >= 0xdc00 && c <= 0xdfff && e < text.length), `cut inside a surrogate pair at ${e}`);
        at = e;
      }
      assert.equal(at, text.length);
    }),
  );
});

const word = fc.stringMatching(/^[A-Za-z]{1,12}$/);
const gap = fc.constantFrom(' ', ' ', ' ', '\n', '\n\n', ', ', '. ', '  ', '\t', '();\n', ' = ', '\n  ', '"', '123 ', ' 🎉 ', 'é ');
const prose = fc.array(fc.tuple(word, gap), { minLength: 50, maxLength: 600 }).map((parts) => parts.map(([w, g]) => w + g).join(''));

test('texts with word boundaries count exactly as the whole text does, in both encodings', () => {
  fc.assert(
    fc.property(prose, (text) => {
      for (const name of ['o200k_base', 'cl100k_base'] as const) {
        assert.equal(counterForEncoding(name).count(text), EXACT[name](text), `${name} on ${JSON.stringify(text.slice(0, 80))}…`);
      }
    }),
    { numRuns: 60 },
  );
});

test('forced cuts inside boundary-free runs stay well inside the tokenizer margin', () => {
  const runs = ['x', 'A', '=', ' ', '0', '你', '🎉', 'ab', 'aB9+/'];
  for (const unit of runs) {
    const text = unit.repeat(Math.ceil(4096 / unit.length));
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const exact = EXACT[name](text);
      const ours = counterForEncoding(name).count(text);
      assert.ok(Math.abs(ours - exact) <= exact * (TOKENIZER_MARGIN / 5), `${name} ${JSON.stringify(unit)}: ${ours} vs exact ${exact}`);
    }
  }
});

test('countAsync equals count, yields to the event loop on long texts, and stops on abort', async () => {
  const counter = counterForEncoding('o200k_base');
  const text = 'y'.repeat(PIECE_CHARS * 400);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  const n = await countTextAsync(counter, text);
  clearInterval(timer);
  assert.equal(n, counter.count(text));
  assert.ok(ticks > 0, 'timers ran while counting');
  const ctrl = new AbortController();
  const pending = countTextAsync(counter, text + 'z', ctrl.signal);
  ctrl.abort(new Error('interrupted'));
  await assert.rejects(pending, /interrupted/);
});
