// Reading a transcript file's text as one JSON document or as JSON lines, keeping the number of every line that could not be read.
import { JsonTooDeepError, parseJsonText } from '../jsonText.js';
import { withoutUnreadMember } from './memberCut.js';
export type Parsed =
  | { readonly kind: 'json'; readonly value: unknown }
  | {
      readonly kind: 'jsonl';
      readonly lines: readonly { readonly n: number; readonly value: unknown }[];
      readonly bad: readonly { readonly n: number; readonly error: string }[];
      readonly total: number;
    }
  | { readonly kind: 'text'; readonly error: string; readonly line: number };

/** A clear error for the user; the CLI prints it as one line. */
export class ImportError extends Error {
  override readonly name = 'ImportError';
}

/** A JSON.parse error without the position details (the line number is given separately). */
export function errText(e: unknown): string {
  return (e instanceof Error ? e.message : String(e))
    .replace(/\s*in JSON at position \d+.*$/, '')
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .trim();
}

function lineOfPosition(text: string, message: string): number {
  const lc = /\(line (\d+) column \d+\)/.exec(message);
  if (lc?.[1] !== undefined) return Number(lc[1]);
  const pos = /at position (\d+)/.exec(message);
  return pos?.[1] === undefined ? 1 : text.slice(0, Number(pos[1])).split('\n').length;
}

/**
 * One JSON line's value. A line that does not parse whole is tried once more without Claude Code's second copy of a
 * result (memberCut.ts), which no importer reads: a line damaged only there is read as the streamed import reads
 * it. Otherwise the whole line's error.
 */
function parseLine(line: string): unknown {
  try {
    return parseJsonText(line);
  } catch (e) {
    const cut = withoutUnreadMember(line);
    if (cut === undefined) throw e;
    try {
      return parseJsonText(cut);
    } catch {
      throw e;
    }
  }
}

export function parseInput(input: string): Parsed {
  const text = input.replace(/^\uFEFF/, '');
  const trimmed = text.trim();
  if (trimmed === '') return { kind: 'text', error: 'the file is empty', line: 1 };
  const lines = text.split(/\r?\n/);
  const firstLine = (lines.find((l) => l.trim() !== '') ?? '').trim();
  let firstIsJson = false;
  try {
    parseLine(firstLine);
    firstIsJson = firstLine.startsWith('{');
  } catch {
    firstIsJson = false;
  }
  const moreThanOneLine = lines.filter((l) => l.trim() !== '').length > 1;
  if (!(firstIsJson && moreThanOneLine)) {
    try {
      return { kind: 'json', value: parseJsonText(text) };
    } catch (e) {
      if (e instanceof JsonTooDeepError) throw new ImportError(e.message);
      const message = e instanceof Error ? e.message : String(e);
      return { kind: 'text', error: errText(e), line: lineOfPosition(text, message) };
    }
  }
  const out: { n: number; value: unknown }[] = [];
  const bad: { n: number; error: string }[] = [];
  lines.forEach((raw, i) => {
    const l = raw.trim();
    if (l === '') return;
    try {
      out.push({ n: i + 1, value: parseLine(l) });
    } catch (e) {
      bad.push({ n: i + 1, error: errText(e) });
    }
  });
  return { kind: 'jsonl', lines: out, bad, total: out.length + bad.length };
}
