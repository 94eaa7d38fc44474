// The YAML front matter of instruction and skill files (`---` … `---`): the subset they use — scalars, quoted strings, `>`/`|` blocks, lists — read without a YAML library.

type FrontValue = string | boolean | readonly string[];

export interface FrontMatter {
  /** Keys at the top level; nested maps (e.g. `metadata:`) are skipped. */
  readonly fields: ReadonlyMap<string, FrontValue>;
  /** The text after the closing `---`. */
  readonly body: string;
}

export type FrontResult = { readonly ok: true; readonly value: FrontMatter } | { readonly ok: false; readonly error: string };

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) {
    const inner = t.slice(1, -1);
    return t.startsWith('"') ? inner.replace(/\\"/g, '"').replace(/\\n/g, '\n').replace(/\\\\/g, '\\') : inner.replace(/''/g, "'");
  }
  // A trailing comment after a plain scalar.
  return t.replace(/\s+#.*$/, '');
}

function scalar(raw: string): FrontValue {
  const t = raw.trim();
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t.startsWith('[') && t.endsWith(']')) {
    return t
      .slice(1, -1)
      .split(',')
      .map((x) => unquote(x))
      .filter((x) => x !== '');
  }
  return unquote(t);
}

/**
 * Parses a file that may start with front matter. No front matter → ok with no fields. An opening `---` without a
 * closing one, or a top-level line that is not `key: value`, is an error the caller names in a warning.
 */
export function parseFrontMatter(text: string): FrontResult {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (!/^---[ \t]*\r?\n/.test(src)) return { ok: true, value: { fields: new Map(), body: src } };
  const lines = src.split(/\r?\n/);
  const end = lines.findIndex((l, i) => i > 0 && /^---[ \t]*$/.test(l));
  if (end < 0) return { ok: false, error: 'the front matter opened with --- is never closed' };
  const fields = new Map<string, FrontValue>();
  for (let i = 1; i < end; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (/^\s/.test(line)) continue; // a nested map's lines (metadata:) — not used here
    const m = /^([A-Za-z0-9_-]+)\s*:(.*)$/.exec(line);
    if (m === null) return { ok: false, error: `line ${i + 1} of the front matter is not "key: value"` };
    const key = m[1] ?? '';
    const rest = (m[2] ?? '').trim();
    if (rest === '|' || rest === '>' || rest === '|-' || rest === '>-' || rest === '>+' || rest === '|+') {
      const block: string[] = [];
      while (i + 1 < end && (/^\s/.test(lines[i + 1] ?? '') || (lines[i + 1] ?? '').trim() === '')) block.push((lines[++i] ?? '').trim());
      fields.set(key, rest.startsWith('>') ? block.filter((b) => b !== '').join(' ') : block.join('\n').trim());
    } else if (rest === '') {
      const items: string[] = [];
      while (i + 1 < end && /^\s*-\s/.test(lines[i + 1] ?? '')) items.push(unquote((lines[++i] ?? '').replace(/^\s*-\s/, '')));
      fields.set(key, items.length > 0 ? items : '');
    } else fields.set(key, scalar(rest));
  }
  return { ok: true, value: { fields, body: lines.slice(end + 1).join('\n') } };
}

/** A field as a string (a list is joined with ", "), or undefined. */
export function stringField(fm: FrontMatter, key: string): string | undefined {
  const v = fm.fields.get(key);
  if (v === undefined || typeof v === 'boolean') return undefined;
  return typeof v === 'string' ? v : v.join(', ');
}

/** Globs from a field written as a list or as one comma-separated string. */
export function globsField(fm: FrontMatter, key: string): string[] {
  const v = fm.fields.get(key);
  if (v === undefined || typeof v === 'boolean') return [];
  const list = typeof v === 'string' ? v.split(',') : v;
  return list.map((g) => g.trim()).filter((g) => g !== '');
}
