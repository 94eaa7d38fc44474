// Benchmark: token counting stays linear: one letter vs words at 1/4/16 MB, and 32 KB of one letter vs gpt-tokenizer unchunked.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { counterForEncoding } from '../src/node/tokenCounter.js';
import { compare, timeMedian, type BenchRow } from './lib.js';

const MB = 1024 * 1024;
const WORDS = 'the quick brown fox jumps over a lazy dog while the build runs and tests pass or fail'.split(' ');

function words(chars: number): string {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const w = WORDS[(i * 7919) % WORDS.length] ?? 'x';
    out.push(w);
    n += w.length + 1;
  }
  return out.join(' ').slice(0, chars);
}

/** Unchunked counting is quadratic: 32 KB already takes about a second; 256 KB about a minute (not run here). */
const UNCHUNKED_CHARS = 32 * 1024;

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const counter = counterForEncoding('o200k_base');
  counter.count('warm up');
  for (const mb of [1, 4, 16]) {
    const letter = 'x'.repeat(mb * MB);
    const text = words(mb * MB);
    const runs = mb === 16 ? 3 : 5;
    const oneLetter = await timeMedian(() => counter.count(letter), runs);
    const prose = await timeMedian(() => counter.count(text), runs);
    rows.push(
      compare(`count ${mb} MB of one letter (vs words)`, oneLetter, `count ${mb} MB of words`, prose, runs, {
        tokens: counter.count(letter),
        wordTokens: counter.count(text),
      }),
    );
  }
  // A fresh string each run so gpt-tokenizer's merge cache does not answer from the previous run.
  let k = 0;
  const fresh = (): string => String.fromCharCode(97 + (k++ % 26)).repeat(UNCHUNKED_CHARS);
  const ordinary = { disallowedSpecial: new Set<string>() };
  const ours = await timeMedian(() => counter.count(fresh()), 5);
  const unchunked = await timeMedian(() => countTokens(fresh(), ordinary), 3);
  rows.push(compare('count 32 KB of one letter, in pieces', ours, 'gpt-tokenizer unchunked', unchunked, 5));
  const letter256 = 'q'.repeat(256 * 1024);
  rows.push({ name: 'count 256 KB of one letter, in pieces', medianMs: await timeMedian(() => counter.count(letter256), 5), runs: 5 });
  return rows;
}
