// Files a patch text changes: the apply_patch envelope (Add/Update/Delete File, Move to) and unified / git diffs.
import type { Rename } from '../transcript/effects.js';

export interface PatchEffects {
  readonly created: string[];
  readonly modified: string[];
  readonly deleted: string[];
  readonly renamed: Rename[];
}

const clean = (p: string): string => p.trim().replace(/^"(.*)"$/, '$1');

/** Reads every file operation in `text`; text that is not a patch gives empty lists. */
export function patchEffects(text: string): PatchEffects {
  const out: PatchEffects = { created: [], modified: [], deleted: [], renamed: [] };
  let envelopeFile: string | undefined;
  let minus: string | undefined;
  let renameFrom: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const env = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (env?.[1] !== undefined && env[2] !== undefined) {
      const p = clean(env[2]);
      envelopeFile = p;
      (env[1] === 'Add' ? out.created : env[1] === 'Delete' ? out.deleted : out.modified).push(p);
      continue;
    }
    const move = /^\*\*\* Move to: (.+)$/.exec(line);
    if (move?.[1] !== undefined && envelopeFile !== undefined) {
      const to = clean(move[1]);
      const at = out.modified.lastIndexOf(envelopeFile);
      if (at !== -1) out.modified.splice(at, 1);
      out.renamed.push({ from: envelopeFile, to });
      continue;
    }
    const from = /^rename from (.+)$/.exec(line);
    if (from?.[1] !== undefined) {
      renameFrom = clean(from[1]);
      continue;
    }
    const to = /^rename to (.+)$/.exec(line);
    if (to?.[1] !== undefined && renameFrom !== undefined) {
      out.renamed.push({ from: renameFrom, to: clean(to[1]) });
      renameFrom = undefined;
      continue;
    }
    const m = /^--- (.+?)(?:\t.*)?$/.exec(line);
    if (m?.[1] !== undefined) {
      minus = clean(m[1]).replace(/^a\//, '');
      continue;
    }
    const p = /^\+\+\+ (.+?)(?:\t.*)?$/.exec(line);
    if (p?.[1] !== undefined && minus !== undefined) {
      const plus = clean(p[1]).replace(/^b\//, '');
      if (minus === '/dev/null' && plus !== '/dev/null') out.created.push(plus);
      else if (plus === '/dev/null') out.deleted.push(minus);
      else if (!out.renamed.some((r) => r.to === plus)) out.modified.push(plus);
      minus = undefined;
    }
  }
  const uniq = (xs: string[]): string[] => [...new Set(xs)];
  return { created: uniq(out.created), modified: uniq(out.modified), deleted: uniq(out.deleted), renamed: out.renamed };
}
