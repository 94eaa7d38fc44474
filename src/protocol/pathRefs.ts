// File paths in text (`src/app.ts`, `src/app.ts:12:3`, `app.ts#L12`): one detector for the host (which keeps the existing ones) and the webview (which links them); imports nothing.

export interface PathRef {
  /** The path as written, without a line suffix. */
  readonly path: string;
  readonly line?: number;
  readonly column?: number;
}

export interface PathMatch extends PathRef {
  /** Offsets of the whole match (line suffix included) in the text. */
  readonly start: number;
  readonly end: number;
}

/** Most paths one text may yield: the host checks each on disk. */
export const MAX_PATH_REFS = 100;
/** Longest path worth checking. */
const MAX_PATH_CHARS = 500;
const MAX_LINE = 10_000_000;

/** A run of path characters, then an optional `:line[:col]`, `:line-line` or `#Lline` suffix. */
const TOKEN = /[A-Za-z0-9_.~+\-/\\]+(?:(?::\d+(?::\d+|-\d+)?)|(?:#L\d+(?:-L?\d+)?))?/g;
/** `scheme://…` and `www.…`: their insides are never paths. */
const URL_LIKE = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>()`'"]*/gi;
const SUFFIX = /^(.*?)(?::(\d+)(?::(\d+)|-\d+)?|#L(\d+)(?:-L?\d+)?)$/;

function lineOf(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  return Number.isInteger(n) && n >= 1 && n <= MAX_LINE ? n : undefined;
}

/**
 * True when `p` looks like a file path: a `/` between named segments, or a name with an extension that has a
 * letter (so `1.2.3`, `v2.0` and `3.14` are not paths). Spaces only where the caller allows them (backticks).
 */
export function looksLikePath(p: string): boolean {
  if (p.length === 0 || p.length > MAX_PATH_CHARS || p.includes('://') || p.includes('\0') || /^[-+]/.test(p)) return false;
  const parts = p.replace(/\\/g, '/').split('/');
  const name = parts[parts.length - 1] ?? '';
  if (name === '' || name === '.' || name === '..') return false;
  if (!/[A-Za-z]/.test(p)) return false;
  const ext = /\.([^.]+)$/.exec(name)?.[1];
  const hasExt = ext !== undefined && /^[A-Za-z][A-Za-z0-9_+-]{0,15}$/.test(ext) && name.length > ext.length + 1;
  const named = parts.filter((s) => s !== '' && s !== '.' && s !== '..');
  const hasDir = named.length >= 2 && named.every((s) => /[A-Za-z0-9_]/.test(s));
  if (!hasExt && !hasDir) return false;
  // A dotted number with a letter suffix is still a version ("1.2.3-beta"), not a file.
  if (/^v?\d+(?:\.\d+)+(?:[-+][\w.]+)?$/i.test(p)) return false;
  return true;
}

/** A whole string as one path reference (inline code, a link's target); undefined when it is not one. */
export function parsePathRef(text: string, allowSpaces = true): PathRef | undefined {
  let s = text.trim();
  if (s.startsWith('file://')) return undefined;
  if (!allowSpaces && /\s/.test(s)) return undefined;
  if (/[\n\t<>"|*?]/.test(s)) return undefined;
  const m = SUFFIX.exec(s);
  let line: number | undefined;
  let column: number | undefined;
  if (m && (m[2] !== undefined || m[4] !== undefined)) {
    s = m[1] ?? '';
    line = lineOf(m[2] ?? m[4]);
    column = lineOf(m[3]);
    if (line === undefined) return undefined;
  }
  if (!looksLikePath(s)) return undefined;
  return { path: s, ...(line === undefined ? {} : { line }), ...(column === undefined ? {} : { column }) };
}

/** Path references in running text, URLs skipped, trailing punctuation left out; at most MAX_PATH_REFS. */
export function findPathRefs(text: string): PathMatch[] {
  const blocked: [number, number][] = [];
  for (const u of text.matchAll(URL_LIKE)) blocked.push([u.index, u.index + u[0].length]);
  const out: PathMatch[] = [];
  for (const m of text.matchAll(TOKEN)) {
    if (out.length >= MAX_PATH_REFS) break;
    const start = m.index;
    let raw = m[0];
    if (blocked.some(([a, b]) => start < b && start + raw.length > a)) continue;
    // Part of a word joined by `@` or `:` (emails, `scheme:x`), or a flag such as `--out`: not a path.
    const before = text[start - 1] ?? '';
    if (/[A-Za-z0-9:]/.test(before) || (before === '@' && /[A-Za-z0-9]/.test(text[start - 2] ?? ''))) continue;
    raw = raw.replace(/[.,;:\-]+$/, '');
    const ref = parsePathRef(raw, false);
    if (ref === undefined) continue;
    out.push({ ...ref, start, end: start + raw.length });
  }
  return out;
}

/** Every path the text may link (running text, backticked spans with spaces, link targets): what the host checks on disk. */
export function candidatePaths(text: string): string[] {
  const set = new Set<string>();
  for (const r of findPathRefs(text)) set.add(r.path);
  for (const m of text.matchAll(/`([^`\n]{1,500})`/g)) {
    const r = parsePathRef(m[1] ?? '');
    if (r !== undefined) set.add(r.path);
  }
  return [...set].slice(0, MAX_PATH_REFS);
}

/** How an attached file reads in a message: `@path`, `@path:3-9`; quoted when it has spaces (the composer and the host's notices agree). */
export function mentionText(a: { readonly path: string; readonly startLine?: number; readonly endLine?: number }): string {
  const range = a.startLine === undefined ? '' : a.endLine === undefined || a.endLine === a.startLine ? `:${a.startLine}` : `:${a.startLine}-${a.endLine}`;
  const p = `${a.path}${range}`;
  return /\s/.test(p) ? `@"${p}"` : `@${p}`;
}
