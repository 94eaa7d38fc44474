// The repository's relative import graph (type imports included) and the cycles in it, found with Tarjan's algorithm.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { scanImports } from './importScanner.js';

/** File (repository-relative, `/`-separated) → the files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out.sort();
}

/** `./x.js` names the source `./x.ts` (the project's ESM-style specifiers); folders resolve to their index. */
function sourceOf(abs: string): string | undefined {
  const candidates = [abs.replace(/\.js$/, '.ts'), abs, `${abs}.ts`, join(abs, 'index.ts')];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c));
}

/** Every relative import of every `.ts` file under `dirs`; a type-only import is an edge too (it couples the files just as much). */
export function importGraph(root: string, dirs: readonly string[]): ImportGraph {
  const rel = (abs: string): string => relative(root, abs).split(sep).join('/');
  const graph = new Map<string, string[]>();
  for (const dir of dirs) {
    for (const f of tsFiles(join(root, dir))) {
      const targets = scanImports(f, readFileSync(f, 'utf8')).flatMap((r) => {
        const s = r.specifier;
        if (s === undefined || !s.startsWith('.')) return [];
        const src = sourceOf(resolve(dirname(f), s));
        return src === undefined ? [] : [rel(src)];
      });
      graph.set(rel(f), [...new Set(targets)]);
    }
  }
  return graph;
}

/** The strongly connected components with more than one file (or a file importing itself), each sorted, the list sorted. */
export function importCycles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

/**
 * Imports that go against `order` (lowest first): a file in folder `order[i]` may import folders `order[0..i]`
 * only. Files outside the listed folders are not checked.
 */
export function orderViolations(graph: ImportGraph, prefix: string, order: readonly string[]): string[] {
  const rank = (file: string): number | undefined => {
    if (!file.startsWith(prefix)) return undefined;
    const folder = file.slice(prefix.length).split('/')[0] ?? '';
    const i = order.indexOf(folder);
    return i < 0 ? undefined : i;
  };
  const problems: string[] = [];
  for (const [from, targets] of graph) {
    const a = rank(from);
    if (a === undefined) continue;
    for (const to of targets) {
      const b = rank(to);
      if (b !== undefined && b > a) problems.push(`${from} imports ${to} (${order[a] ?? ''} may not depend on ${order[b] ?? ''})`);
    }
  }
  return problems.sort();
}

/** The engine's folders, lowest first: each may import only the ones before it (and the top-level ports, config and ids). */
export const ENGINE_ORDER: readonly string[] = ['transcript', 'tokens', 'provider', 'effects', 'compaction', 'instructions', 'import', 'portable', 'agent'];

/**
 * The host layer's folders, lowest first: base (disposables, ids, sequencer, the slash grammar) ← services (own
 * state, emit events) ← projection (what the webview shows) ← actions ← views ← commands (palette, tree, the router).
 */
export const HOST_ORDER: readonly string[] = ['base', 'providers', 'services', 'projection', 'actions', 'views', 'commands'];
