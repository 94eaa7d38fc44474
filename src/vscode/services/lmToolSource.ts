// The tools VS Code itself knows (`vscode.lm.tools`) as the in-process MCP server's source: listed live and filtered, called with `vscode.lm.invokeTool` outside any chat request, changes passed on as list_changed.
import * as vscode from 'vscode';
import type { BridgeTool, ToolSource } from '../../node/mcp/bridgeServer.js';
import { lmErrorToMcp, lmResultToMcp, offeredLmTools, type LmToolInfo, type OfferRule } from '../../node/mcp/lmToolBridge.js';

/** The part of `vscode.lm` used here; `onDidChangeTools` is not in every VS Code's API, so it is looked up at run time. */
export interface LmToolsApi {
  readonly tools: readonly LmToolInfo[];
  invokeTool(
    name: string,
    options: { input: object; toolInvocationToken: undefined },
    token: vscode.CancellationToken,
  ): Thenable<{ readonly content: readonly unknown[] }>;
  readonly onDidChangeTools?: vscode.Event<unknown>;
}

/** `vscode.lm` when this VS Code lists and invokes tools, else undefined. */
export function lmToolsApi(): LmToolsApi | undefined {
  const lm = (vscode as { readonly lm?: unknown }).lm as Partial<LmToolsApi> | undefined;
  return lm !== undefined && Array.isArray(lm.tools) && typeof lm.invokeTool === 'function' ? (lm as LmToolsApi) : undefined;
}

export class LmToolSource implements ToolSource, vscode.Disposable {
  readonly #listeners = new Set<() => void>();
  readonly #subscriptions: vscode.Disposable[] = [];
  #last: string;

  constructor(
    private readonly lm: LmToolsApi,
    private readonly rule: OfferRule,
  ) {
    this.#last = this.#signature();
    if (typeof lm.onDidChangeTools === 'function') this.#subscriptions.push(lm.onDidChangeTools(() => this.refresh()));
    // Without that event, an extension installed or enabled is the other way new tools appear.
    const extensions = (vscode as { readonly extensions?: { readonly onDidChange?: vscode.Event<void> } }).extensions;
    if (typeof extensions?.onDidChange === 'function') this.#subscriptions.push(extensions.onDidChange(() => this.refresh()));
  }

  list(): BridgeTool[] {
    return offeredLmTools(this.lm.tools, this.rule).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  }

  #signature(): string {
    return JSON.stringify(this.list());
  }

  /** Looks at `vscode.lm.tools` again and tells the server when what is offered changed (each chat start, and on VS Code's events). */
  refresh(): void {
    const now = this.#signature();
    if (now === this.#last) return;
    this.#last = now;
    for (const l of [...this.#listeners]) l();
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * No chat request of VS Code's own is behind the call, so the token is undefined: VS Code then shows no chat UI, only
   * the tool's own confirmation if it asks for one. Capsule's approval card has been answered before this runs.
   */
  async call(name: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<Awaited<ReturnType<ToolSource['call']>>> {
    const cts = new vscode.CancellationTokenSource();
    const cancel = (): void => cts.cancel();
    if (signal.aborted) cts.cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    try {
      return lmResultToMcp(await this.lm.invokeTool(name, { input: { ...args }, toolInvocationToken: undefined }, cts.token));
    } catch (err) {
      return lmErrorToMcp(name, err);
    } finally {
      signal.removeEventListener('abort', cancel);
      cts.dispose();
    }
  }

  dispose(): void {
    for (const s of this.#subscriptions.splice(0)) s.dispose();
    this.#listeners.clear();
  }
}
