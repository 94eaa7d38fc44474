// Read-only documents of recorded file contents (an edit's before and after), served from memory for VS Code's diff editor.
import * as vscode from 'vscode';
import { Disposable } from '../base/disposable.js';

/** The scheme of "Show diff" documents; nothing under it is ever written to disk. */
const SNAPSHOT_SCHEME = 'capsule-snapshot';
/** Enough diffs to look back through a session; older ones are dropped first. */
const MAX_DOCUMENTS = 40;

export class SnapshotDocuments extends Disposable {
  readonly #contents = new Map<string, string>();
  #counter = 0;

  constructor() {
    super();
    const contents = this.#contents;
    this._register(
      vscode.workspace.registerTextDocumentContentProvider(SNAPSHOT_SCHEME, { provideTextDocumentContent: (uri) => contents.get(uri.toString()) ?? '' }),
    );
  }

  /** A document named like `path` (so the editor picks its language) with `text` as its content. */
  document(path: string, side: 'before' | 'after', text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: SNAPSHOT_SCHEME, path: `/${path.replace(/^\/+/, '')}`, query: `${side}-${++this.#counter}` });
    this.#contents.set(uri.toString(), text);
    while (this.#contents.size > MAX_DOCUMENTS * 2) {
      const oldest = this.#contents.keys().next();
      if (oldest.done) break;
      this.#contents.delete(oldest.value);
    }
    return uri;
  }

  /** Opens VS Code's diff editor of `before` ↔ `after`. */
  async showDiff(path: string, before: string, after: string, title: string): Promise<void> {
    await vscode.commands.executeCommand('vscode.diff', this.document(path, 'before', before), this.document(path, 'after', after), title, { preview: true });
  }
}
