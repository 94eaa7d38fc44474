// The flat `key: value` front matter of a .capsule.md file: a deliberately tiny YAML subset (plain, quoted, numbers).
//
// Only one flat level is ever written, so a YAML library would add a large surface (anchors, tags,
// nested documents) for nothing; anything outside the subset is rejected with the line number.

export type FrontMatterValue = string | number;

export type FrontMatterSplit =
  | { readonly ok: true; readonly fields: Readonly<Record<string, FrontMatterValue>>; readonly body: string }
  | { readonly ok: false; readonly kind: 'no_front_matter' | 'bad_front_matter'; readonly message: string };

const DELIMITER = /^---[ \t]*$/;
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
const DOUBLE_QUOTED = /^("(?:[^"\\]|\\.)*")(?:[ \t]+#.*)?$/;
const SINGLE_QUOTED = /^'((?:[^']|'')*)'(?:[ \t]+#.*)?$/;
/** Characters that start YAML structures this subset does not support (flow lists/maps, blocks, anchors, tags...). */
const STRUCTURE_START = /^[[\]{}|>&*!%@`,]/;
/** Words a YAML reader would turn into booleans or null; written quoted so other tools read them as text. */
const YAML_WORDS = /^(?:true|false|yes|no|on|off|null|~)$/i;
const SAFE_PLAIN = /^[A-Za-z0-9_][A-Za-z0-9_.:/+-]*$/;
/** Keys that name parts of every JavaScript object: silently lost or harmful if they were accepted. */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function parseValue(raw: string): { value: FrontMatterValue } | { error: string } {
  if (raw.startsWith('"')) {
    const m = DOUBLE_QUOTED.exec(raw);
    if (m?.[1] === undefined) return { error: 'unterminated double-quoted string' };
    try {
      // JSON string escapes are a subset of YAML's double-quoted escapes.
      const v: unknown = JSON.parse(m[1]);
      return typeof v === 'string' ? { value: v } : { error: 'not a string' };
    } catch {
      return { error: 'unsupported escape in double-quoted string' };
    }
  }
  if (raw.startsWith("'")) {
    const m = SINGLE_QUOTED.exec(raw);
    if (m?.[1] === undefined) return { error: 'unterminated single-quoted string' };
    return { value: m[1].replace(/''/g, "'") };
  }
  if (STRUCTURE_START.test(raw) || raw.startsWith('- ') || raw === '-') {
    return { error: 'lists, maps and block values are not supported; write one plain or quoted value' };
  }
  const plain = raw.replace(/[ \t]+#.*$/, '');
  if (NUMBER.test(plain)) return { value: Number(plain) };
  return { value: plain };
}

/** Splits `---` front matter from the body and parses its lines; the body is every byte after the closing delimiter line. */
export function splitFrontMatter(text: string): FrontMatterSplit {
  const firstBreak = text.indexOf('\n');
  const firstLine = (firstBreak === -1 ? text : text.slice(0, firstBreak)).replace(/\r$/, '');
  if (!DELIMITER.test(firstLine)) {
    return { ok: false, kind: 'no_front_matter', message: 'the file does not start with a `---` front matter block; is it a .capsule.md file?' };
  }
  const fields: Record<string, FrontMatterValue> = {};
  let pos = firstBreak + 1;
  let lineNo = 1;
  while (firstBreak !== -1 && pos <= text.length) {
    const next = text.indexOf('\n', pos);
    const end = next === -1 ? text.length : next;
    const line = text.slice(pos, end).replace(/\r$/, '');
    lineNo++;
    pos = end + 1;
    if (DELIMITER.test(line)) return { ok: true, fields, body: next === -1 ? '' : text.slice(pos) };
    if (next === -1) break;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const bad = (why: string): FrontMatterSplit => ({ ok: false, kind: 'bad_front_matter', message: `front matter line ${lineNo}: ${why}` });
    if (/^[ \t]/.test(line)) return bad('indented (nested) values are not supported');
    const m = KEY_LINE.exec(line);
    if (m?.[1] === undefined) return bad('expected `key: value`');
    const key = m[1];
    if (FORBIDDEN_KEYS.has(key)) return bad(`'${key}' is not allowed as a key`);
    if (Object.hasOwn(fields, key)) return bad(`duplicate key '${key}'`);
    if (m[2] === undefined || m[2] === '') return bad(`'${key}' has no value`);
    const parsed = parseValue(m[2]);
    if ('error' in parsed) return bad(`'${key}': ${parsed.error}`);
    fields[key] = parsed.value;
  }
  return { ok: false, kind: 'no_front_matter', message: 'the front matter block is not closed by a `---` line' };
}

/** One value as this subset writes it: numbers bare, simple words bare, everything else double-quoted. */
function renderValue(value: FrontMatterValue): string {
  if (typeof value === 'number') return String(value);
  const plainIsSafe = SAFE_PLAIN.test(value) && !NUMBER.test(value) && !YAML_WORDS.test(value) && !value.includes(': ');
  return plainIsSafe ? value : JSON.stringify(value);
}

/** The `---` block for the given fields, in the order given; undefined values are left out. */
export function renderFrontMatter(fields: ReadonlyArray<readonly [string, FrontMatterValue | undefined]>): string {
  const lines = ['---'];
  for (const [key, value] of fields) if (value !== undefined) lines.push(`${key}: ${renderValue(value)}`);
  lines.push('---');
  return `${lines.join('\n')}\n`;
}
