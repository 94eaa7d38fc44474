// Which instruction files apply: always, to work under a folder (nested AGENTS.md, nearest last), or to paths matching globs; and the paths the agent has worked on, read from the branch.
import { toolActionsOf } from '../compaction/toolActions.js';
import type { Entry } from '../transcript/schema.js';
import { globMatches } from './glob.js';

type Applies =
  | { readonly kind: 'always' }
  /** A nested AGENTS.md: work under `dir` (workspace-relative, ending in `/`). */
  | { readonly kind: 'under'; readonly dir: string }
  /** Copilot `applyTo`, Cursor `globs`: a worked-on path matches one of them. */
  | { readonly kind: 'globs'; readonly globs: readonly string[] };

export interface CandidateFile {
  readonly key: string;
  readonly label: string;
  readonly text: string;
  readonly applies: Applies;
}

function applies(a: Applies, touched: readonly string[]): boolean {
  switch (a.kind) {
    case 'always':
      return true;
    case 'under':
      return touched.some((p) => p === a.dir.slice(0, -1) || p.startsWith(a.dir));
    case 'globs':
      return a.globs.some((g) => touched.some((p) => globMatches(g, p)));
  }
}

function depthOf(a: Applies): number {
  return a.kind === 'under' ? a.dir.split('/').length : 0;
}

/**
 * The files that apply to the work so far, in the reader's order except that folder-scoped files follow the
 * always-on ones, shallow before deep: the nearest AGENTS.md comes last, and the block says the later one wins.
 */
export function applicableFiles(files: readonly CandidateFile[], touched: readonly string[]): CandidateFile[] {
  const on = files.filter((f) => applies(f.applies, touched));
  return on
    .map((f, i) => ({ f, i }))
    .sort((x, y) => depthOf(x.f.applies) - depthOf(y.f.applies) || x.i - y.i)
    .map((x) => x.f);
}

/** Workspace paths the agent's calls named (reads, writes, listings, searches, a command's folder), as written in the calls. */
export class TouchedPaths {
  #seen = new Set<string>();
  #scanned = 0;
  #lastId: string | undefined;

  /** Reads only the entries added since the last call when the branch grew; a rewound branch is read again. */
  of(branch: readonly Entry[]): readonly string[] {
    const grew = this.#scanned > 0 && this.#scanned <= branch.length && branch[this.#scanned - 1]?.id === this.#lastId;
    if (!grew) {
      this.#seen = new Set();
      this.#scanned = 0;
    }
    for (const a of toolActionsOf(branch.slice(this.#scanned))) {
      if (a.kind === 'read' || a.kind === 'modify' || a.kind === 'list' || a.kind === 'search') for (const p of a.paths) this.#seen.add(p);
      if (a.workdir !== undefined) this.#seen.add(a.workdir);
    }
    this.#scanned = branch.length;
    this.#lastId = branch[branch.length - 1]?.id;
    return [...this.#seen];
  }

  /**
   * Starts from a list recorded on the branch (a system update's `touched`): the paths named up to entry `id`, so
   * the next growth is read from there instead of from the root.
   */
  seed(paths: readonly string[], id: string): void {
    this.#seen = new Set(paths);
    this.#lastId = id;
    this.#scanned = Math.max(1, this.#scanned);
  }

  /** The id of the last entry read: what the next growth is measured from. */
  get lastId(): string | undefined {
    return this.#lastId;
  }

  /** The same as of(), from what the branch gained since `lastId` (`grew` false: the whole branch, read again). */
  ofGrowth(growth: { readonly grew: boolean; readonly entries: readonly Entry[] }): readonly string[] {
    if (!growth.grew) {
      this.#seen = new Set();
      this.#lastId = undefined;
    }
    for (const a of toolActionsOf(growth.entries)) {
      if (a.kind === 'read' || a.kind === 'modify' || a.kind === 'list' || a.kind === 'search') for (const p of a.paths) this.#seen.add(p);
      if (a.workdir !== undefined) this.#seen.add(a.workdir);
    }
    this.#lastId = growth.entries[growth.entries.length - 1]?.id ?? this.#lastId;
    this.#scanned = Math.max(1, this.#scanned);
    return [...this.#seen];
  }
}
