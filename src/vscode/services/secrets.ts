// API keys in VS Code's SecretStorage, one per endpoint; never in settings, never logged, never posted to the webview.
import * as vscode from 'vscode';

/** The endpoint an empty `capsule.provider.baseUrl` means. */
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The base URL requests go to: the setting, or OpenAI itself when it is empty. */
export function endpointOf(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  return trimmed === '' ? OPENAI_BASE_URL : trimmed;
}

/** The SecretStorage key of an endpoint's API key; a key belongs to the server it was entered for. */
function apiKeySecretName(baseUrl: string): string {
  return `capsule.apiKey:${endpointOf(baseUrl)}`;
}

export class ApiKeys implements vscode.Disposable {
  readonly #emitter = new vscode.EventEmitter<void>();
  readonly #listener: vscode.Disposable;
  /** Fires when any Capsule key changed (also from another window). */
  readonly onDidChange = this.#emitter.event;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.#listener = secrets.onDidChange((e) => {
      if (e.key.startsWith('capsule.apiKey:')) this.#emitter.fire();
    });
  }

  /** The stored key, or '' when there is none (keyless local servers need none). */
  async get(baseUrl: string): Promise<string> {
    return (await this.secrets.get(apiKeySecretName(baseUrl))) ?? '';
  }

  async has(baseUrl: string): Promise<boolean> {
    return (await this.get(baseUrl)) !== '';
  }

  async set(baseUrl: string, key: string): Promise<void> {
    const trimmed = key.trim();
    if (trimmed === '') await this.secrets.delete(apiKeySecretName(baseUrl));
    else await this.secrets.store(apiKeySecretName(baseUrl), trimmed);
  }

  dispose(): void {
    this.#listener.dispose();
    this.#emitter.dispose();
  }
}
