// Reading a result's lines from either end without splitting it gives exactly what splitting the whole text gave: first/last lines, exit codes, failures and runner summaries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { exitCodeOf, resultStatus } from '../../../src/engine/effects/resultStatus.js';
import { testSummary } from '../../../src/engine/effects/testRunners.js';
import { firstNonBlankLine, lastNonBlankLine, scanLines, scanLinesFromEnd } from '../../../src/engine/effects/textLines.js';

/** The line split every reader used before: normalize CR/CRLF, split, trim, drop blanks. */
const splitLines = (text: string): string[] =>
  text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

// The readers as they were written over the whole split text; the new ones must agree with them on every input.
function oldExitCode(text: string): number | null {
  const tag = /<returncode>\s*(-?\d+)\s*<\/returncode>/.exec(text);
  if (tag?.[1] !== undefined) return Number(tag[1]);
  const t = text.trimStart();
  if (t.startsWith('{')) {
    try {
      const v = JSON.parse(t) as Record<string, unknown> | null;
      const meta = v?.['metadata'] as Record<string, unknown> | undefined;
      const code = typeof meta === 'object' && meta !== null ? meta['exit_code'] : v?.['exit_code'];
      if (typeof code === 'number' && Number.isInteger(code)) return code;
    } catch {
      // not JSON
    }
  }
  const all = text.replace(/\r\n?/g, '\n').split('\n');
  const first = all.find((l) => l.trim() !== '')?.trim() ?? '';
  const head = /^(?:Exit code:?|Process exited with code|Command exited with code)\s*(-?\d+)\b/i.exec(first);
  if (head?.[1] !== undefined) return Number(head[1]);
  const last =
    [...all]
      .reverse()
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  const tail = /^(?:exit code:?|(?:process |command )?exited with code)\s*(-?\d+)\.?$/i.exec(last);
  return tail?.[1] === undefined ? null : Number(tail[1]);
}

const OLD_FAILURES = [
  /^\s*<tool_use_error>/,
  /^\s*(?:Error: )?File does not exist\b/i,
  /^\s*The path \S+ does not exist/,
  /^\s*No replacement was performed/,
  /^\s*killed after timeout\b/im,
  /^\s*(?:Error: )?Command timed out\b/i,
];

const SUMMARY = [
  /\b\d+\s+(?:passed|failed|passing|failing|failures?|errors?|examples?|tests?)\b/i,
  /^test result: (?:ok|FAILED)\b/,
  /^(?:ok|FAIL)\s+\S+/,
  /^# (?:pass|fail|tests) \d+/,
  /^OK \(\d+ tests?/,
  /^(?:Passed|Failed)!\s+-/,
  /^BUILD (?:SUCCESSFUL|FAILED)/,
  /\btests? passed, \d+ tests? failed/,
  /^(?:FAILED \(|OK$|OK \(skipped)/,
];
function oldSummary(output: string): string | undefined {
  const all = splitLines(output);
  const tap = all.filter((l) => /^# (?:pass|fail) \d+$/.test(l)).slice(-2);
  if (tap.length === 2) return tap.map((l) => l.slice(2)).join(', ');
  for (let i = all.length - 1; i >= 0; i--) {
    const l = all[i] ?? '';
    if (/^exit code -?\d+$/.test(l) || /^<\/?(?:returncode|output)>/.test(l)) continue;
    if (SUMMARY.some((re) => re.test(l))) return l.replace(/^=+\s*|\s*=+$/g, '').slice(0, 200);
  }
  return undefined;
}

/** Texts built from the pieces the readers look for, glued with every kind of line break and blank. */
const pieces = fc.constantFrom(
  '\n',
  '\r',
  '\r\n',
  '\n\n',
  ' ',
  '\t',
  '\u2028',
  'a',
  'x y',
  'exit code 1',
  'Exit code: 2',
  'exited with code 3.',
  'Process exited with code 0',
  '<returncode>4</returncode>',
  '<returncode>',
  '# pass 3',
  '# fail 1',
  '# fail 0',
  '12 passed, 1 failed',
  'test result: ok.',
  'OK',
  'FAILED (failures=1)',
  'killed after timeout (5 ms)',
  'KILLED After Timeout',
  '  killed after timeoutx',
  'Error: File does not exist',
  '<tool_use_error>',
  '{"metadata":{"exit_code":5}}',
  'ok 1 - a',
  '=== 3 passed ===',
  '<output>',
  'Command timed out',
);
const texts = fc.array(pieces, { maxLength: 30 }).map((p) => p.join(''));

test('lines read from either end are the split lines, in order and reversed', () => {
  fc.assert(
    fc.property(texts, (text) => {
      const forward: string[] = [];
      scanLines(text, (l) => {
        forward.push(l);
        return false;
      });
      const backward: string[] = [];
      scanLinesFromEnd(text, (l) => {
        backward.push(l);
        return false;
      });
      const all = splitLines(text);
      assert.deepEqual(forward, all);
      assert.deepEqual(backward, [...all].reverse());
      assert.equal(firstNonBlankLine(text), all[0] ?? '');
      assert.equal(lastNonBlankLine(text), all.at(-1) ?? '');
    }),
    { numRuns: 2000 },
  );
});

test('exit codes, failures and runner summaries are what the whole-text readers found', () => {
  fc.assert(
    fc.property(texts, fc.boolean(), (text, isError) => {
      assert.equal(exitCodeOf(text), oldExitCode(text));
      const code = oldExitCode(text);
      assert.equal(resultStatus(text, isError).failed, isError || (code !== null && code !== 0) || OLD_FAILURES.some((re) => re.test(text)));
      assert.equal(testSummary(text), oldSummary(text));
    }),
    { numRuns: 2000 },
  );
});

test('scanning stops at the first line the visitor accepts', () => {
  const seen: string[] = [];
  scanLinesFromEnd('a\r\nb\rc\n\n d \n', (l) => {
    seen.push(l);
    return l === 'c';
  });
  assert.deepEqual(seen, ['d', 'c']);
});
