// Workspace files for the chat: the `@` completion's candidates (VS Code's file search, the editor's excludes), and which paths in a text exist.
import * as vscode from 'vscode';
import { candidatePaths, MAX_PATH_REFS } from '../../protocol/pathRefs.js';
import { LIST_LIMITS } from '../../protocol/limits.js';
import { existingWorkspaceFiles } from '../../node/tools/workspaceFiles.js';
import { Disposable } from '../base/disposable.js';
import { rankPaths } from '../base/fileRank.js';
import { editorExcludes } from './settings.js';

/** Folders nobody means by `@` even where no setting hides them (dependencies, version-control data). */
const ALWAYS_EXCLUDED = ['**/node_modules/**', '**/.git/**', '**/.hg/**', '**/.svn/**'];
/** Files listed once per refresh; the ranking runs over them in memory for every keystroke. */
const MAX_LISTED = 20_000;
/** A listing this fresh answers the next keystroke without another search. */
const FRESH_MS = 5_000;
/** Existence answers are reused this long (one snapshot, one burst of appended entries), then asked again. */
const KNOWN_MS = 2_000;
const MAX_KNOWN = 10_000;

/** The workspace folders on disk, first one first: relative paths resolve against it, as the tools do. */
export function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/** A path as the chat shows it: relative to its workspace folder with forward slashes (folder-prefixed in a multi-root workspace). */
export function relativePath(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1).replace(/\\/g, '/');
}

export class WorkspaceFiles extends Disposable {
  #listing: { readonly at: number; readonly paths: Promise<string[]> } | undefined;
  #search: vscode.CancellationTokenSource | undefined;
  /** What was found on disk lately: a snapshot of a long chat names the same files many times over. */
  #known: { readonly key: string; readonly at: number; readonly exists: Map<string, boolean> } = { key: '', at: 0, exists: new Map() };

  constructor() {
    super();
    // A file created or deleted makes the listing stale at once (renames are a delete plus a create).
    const watcher =
      typeof vscode.workspace.createFileSystemWatcher === 'function'
        ? this._register(vscode.workspace.createFileSystemWatcher('**/*', false, true, false))
        : undefined;
    if (watcher) {
      this._register(watcher.onDidCreate(() => (this.#listing = undefined)));
      this._register(watcher.onDidDelete(() => (this.#listing = undefined)));
    }
    this._register({ dispose: () => this.#search?.cancel() });
  }

  /** The best matches for `query`, at most LIST_LIMITS.fileMatches; a newer search cancels one still running. */
  async find(query: string): Promise<string[]> {
    const paths = await this.#paths();
    return rankPaths(query.replace(/^@/, ''), paths, LIST_LIMITS.fileMatches);
  }

  /** The paths in `text` that name existing files inside the workspace, as the text writes them. */
  links(texts: readonly string[]): string[] | undefined {
    const roots = workspaceRoots();
    if (roots.length === 0) return undefined;
    const candidates = [...new Set(texts.flatMap((t) => candidatePaths(t)))].slice(0, MAX_PATH_REFS);
    const now = Date.now();
    const key = roots.join('\0');
    if (this.#known.key !== key || now - this.#known.at > KNOWN_MS || this.#known.exists.size > MAX_KNOWN) this.#known = { key, at: now, exists: new Map() };
    const known = this.#known.exists;
    const unknown = candidates.filter((c) => !known.has(c));
    const found = new Set(existingWorkspaceFiles(roots, unknown));
    for (const c of unknown) known.set(c, found.has(c));
    const links = candidates.filter((c) => known.get(c) === true);
    return links.length === 0 ? undefined : links;
  }

  #paths(): Promise<string[]> {
    const now = Date.now();
    if (this.#listing !== undefined && now - this.#listing.at < FRESH_MS) return this.#listing.paths;
    this.#search?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.#search = cts;
    const exclude = `{${[...ALWAYS_EXCLUDED, ...editorExcludes()].join(',')}}`;
    const paths = Promise.resolve(vscode.workspace.findFiles('**/*', exclude, MAX_LISTED, cts.token)).then((uris) => uris.map(relativePath).sort());
    this.#listing = { at: now, paths };
    // A failed search is not kept: the next keystroke asks again.
    paths.catch(() => {
      if (this.#listing?.paths === paths) this.#listing = undefined;
    });
    return paths;
  }
}
