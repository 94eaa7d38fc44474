// Glob patterns of instruction files (`applyTo`, Cursor `globs`) matched against workspace-relative paths.

const cache = new Map<string, RegExp>();

function escape(ch: string): string {
  return /[.+^$()|[\]\\]/.test(ch) ? `\\${ch}` : ch;
}

/** `**` crosses folders, `*` and `?` stay inside one, `{a,b}` is a choice; everything else is literal. */
function globToRegExp(glob: string): RegExp {
  const hit = cache.get(glob);
  if (hit !== undefined) return hit;
  let out = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] ?? '';
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        out += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else out += '[^/]*';
    } else if (ch === '?') out += '[^/]';
    else if (ch === '{') {
      depth++;
      out += '(?:';
    } else if (ch === '}' && depth > 0) {
      depth--;
      out += ')';
    } else if (ch === ',' && depth > 0) out += '|';
    else out += escape(ch);
  }
  const re = new RegExp(`^${out}${')'.repeat(depth)}$`);
  if (cache.size > 500) cache.clear();
  cache.set(glob, re);
  return re;
}

/** True when `path` (workspace-relative, `/`-separated) matches; a pattern without `/` also matches a file's name in any folder, as in .gitignore. */
export function globMatches(glob: string, path: string): boolean {
  const g = glob.trim().replace(/^\.\//, '').replace(/^\//, '');
  if (g === '') return false;
  if (globToRegExp(g).test(path)) return true;
  if (!g.includes('/')) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    return globToRegExp(g).test(name);
  }
  return false;
}
