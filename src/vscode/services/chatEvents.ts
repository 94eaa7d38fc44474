// What the chat service's parts tell the layers above them (the projection, the checkpoints tree, the status bar), as one stream of ChatChange events.
import * as vscode from 'vscode';
import { Disposable } from '../base/disposable.js';
import type { ChatChange } from './chatPorts.js';

/** One emitter, shared by the agent, the work queue, the figures and the setup (they sit below the projection, so they say things as events). */
export class ChatEvents extends Disposable {
  readonly #emitter = this._register(new vscode.EventEmitter<ChatChange>());
  readonly onDidChange = this.#emitter.event;

  fire(change: ChatChange): void {
    this.#emitter.fire(change);
  }

  /** Said in the chat, after the current leaf. */
  fail(text: string): void {
    this.#emitter.fire({ kind: 'fail', text });
  }

  /** A transient notice. */
  notify(level: 'info' | 'warning' | 'error', text: string): void {
    this.#emitter.fire({ kind: 'notice', level, text });
  }
}
