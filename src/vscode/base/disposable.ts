// The one Disposable base of the host layer: register each resource the moment it is created; dispose releases them in reverse.
import type * as vscode from 'vscode';

export abstract class Disposable implements vscode.Disposable {
  readonly #owned: vscode.Disposable[] = [];
  #disposed = false;

  protected get isDisposed(): boolean {
    return this.#disposed;
  }

  /** Takes ownership of `d` (disposed with this object; at once when this object is already gone) and returns it. */
  protected _register<T extends vscode.Disposable>(d: T): T {
    if (this.#disposed) d.dispose();
    else this.#owned.push(d);
    return d;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    // Reverse order: what was created last may depend on what came before it.
    for (const d of this.#owned.splice(0).reverse()) d.dispose();
  }
}
