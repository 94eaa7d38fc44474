// Fuzzy ranking of workspace paths for the `@` completion: every query character in order, the file name and word starts weighing most.

const BOUNDARY = /[/\\._\-\s]/;

/**
 * A score for `path` against `query` (higher is better), or undefined when the query's characters do not all appear
 * in order. Matches in the file name, at word starts and in runs score more; shorter paths win ties.
 */
export function scorePath(query: string, path: string): number | undefined {
  const q = query.toLowerCase().replace(/\s+/g, '');
  if (q === '') return 0 - path.length / 1000;
  const p = path.toLowerCase();
  const nameStart = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1;
  // A query that is a substring of the name (or the path) beats any scattered match.
  const inName = p.indexOf(q, nameStart);
  if (inName >= 0) return 1000 - (inName - nameStart) * 5 - path.length / 100 + (inName === nameStart ? 200 : 0);
  const inPath = p.indexOf(q);
  if (inPath >= 0) return 600 - path.length / 100 + (inPath === 0 || BOUNDARY.test(p[inPath - 1] ?? '') ? 100 : 0);
  let score = 0;
  let at = 0;
  let run = 0;
  for (const ch of q) {
    const found = p.indexOf(ch, at);
    if (found < 0) return undefined;
    run = found === at && at > 0 ? run + 1 : 0;
    score += 1 + run * 3 + (found === 0 || BOUNDARY.test(p[found - 1] ?? '') ? 8 : 0) + (found >= nameStart ? 4 : 0);
    at = found + 1;
  }
  return score - path.length / 100;
}

/** The best `limit` paths for `query`, best first (ties by path, so the order is stable). */
export function rankPaths(query: string, paths: readonly string[], limit: number): string[] {
  const scored: { readonly path: string; readonly score: number }[] = [];
  for (const path of paths) {
    const score = scorePath(query, path);
    if (score !== undefined) scored.push({ path, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return scored.slice(0, limit).map((s) => s.path);
}
