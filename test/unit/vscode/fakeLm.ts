// A fake of the `vscode` Language Model API (message/part classes, errors, tokens, `lm`) and a scripted LanguageModelChat.
import { installFakeVscode } from '../../support/fakeVscode.js';

export class LanguageModelTextPart {
  constructor(public value: string) {}
}

export class LanguageModelToolCallPart {
  constructor(
    public callId: string,
    public name: string,
    public input: object,
  ) {}
}

export class LanguageModelToolResultPart {
  constructor(
    public callId: string,
    public content: unknown[],
  ) {}
}

export const LanguageModelChatMessageRole = { User: 1, Assistant: 2 } as const;

type Part = LanguageModelTextPart | LanguageModelToolCallPart | LanguageModelToolResultPart;

/** Like VS Code's: string content becomes one text part. */
export class LanguageModelChatMessage {
  content: Part[];
  constructor(
    public role: number,
    content: string | Part[],
    public name?: string,
  ) {
    this.content = typeof content === 'string' ? [new LanguageModelTextPart(content)] : content;
  }
  static User(content: string | Part[]): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.User, content);
  }
  static Assistant(content: string | Part[]): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.Assistant, content);
  }
}

/** Like VS Code's: `code` is the name of the static factory that made it. */
export class LanguageModelError extends Error {
  readonly code: string;
  constructor(message?: string, code?: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'LanguageModelError';
    this.code = code ?? '';
  }
  static NoPermissions(message?: string): LanguageModelError {
    return new LanguageModelError(message, LanguageModelError.NoPermissions.name);
  }
  static Blocked(message?: string): LanguageModelError {
    return new LanguageModelError(message, LanguageModelError.Blocked.name);
  }
  static NotFound(message?: string): LanguageModelError {
    return new LanguageModelError(message, LanguageModelError.NotFound.name);
  }
}

class CancellationError extends Error {
  constructor() {
    super('Canceled');
    this.name = 'Canceled';
  }
}

export interface FakeToken {
  isCancellationRequested: boolean;
  onCancellationRequested(l: () => void): { dispose(): void };
}

export class CancellationTokenSource {
  static readonly all: CancellationTokenSource[] = [];
  disposed = false;
  readonly #listeners: (() => void)[] = [];
  readonly token: FakeToken = {
    isCancellationRequested: false,
    onCancellationRequested: (l) => {
      this.#listeners.push(l);
      return { dispose: () => undefined };
    },
  };
  constructor() {
    CancellationTokenSource.all.push(this);
  }
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    for (const l of this.#listeners) l();
  }
  dispose(): void {
    this.disposed = true;
  }
}

/** One scripted stream step: a part to yield, an error to throw, or a stall (honouring the token or not). */
type Step = { readonly part: unknown } | { readonly error: unknown } | 'stallUntilCancelled' | 'stallForever';

export interface Scripted {
  /** Rejects sendRequest itself (consent, unknown model...). */
  readonly reject?: unknown;
  /** sendRequest never settles. */
  readonly hangRequest?: boolean;
  readonly steps?: readonly Step[];
}

export interface RecordedRequest {
  readonly messages: LanguageModelChatMessage[];
  readonly options: { justification?: string; tools?: { name: string; description: string; inputSchema?: object }[]; toolMode?: number } | undefined;
  readonly token: FakeToken;
}

const never = new Promise<never>(() => undefined);

function cancelled(token: FakeToken): Promise<never> {
  return new Promise((_, reject) => token.onCancellationRequested(() => reject(new CancellationError())));
}

async function* play(steps: readonly Step[], token: FakeToken): AsyncGenerator<unknown> {
  for (const s of steps) {
    if (s === 'stallUntilCancelled') await cancelled(token);
    else if (s === 'stallForever') await never;
    else if ('error' in s) throw s.error;
    else yield s.part;
  }
}

/** Counts a quarter token per character, like a rough tokenizer, over a text or a message's text parts. */
function fakeCount(item: string | LanguageModelChatMessage): number {
  const text = typeof item === 'string' ? item : item.content.map((p) => (p instanceof LanguageModelTextPart ? p.value : JSON.stringify(p))).join('');
  return Math.ceil(text.length / 4);
}

export class FakeLanguageModelChat {
  readonly requests: RecordedRequest[] = [];
  readonly counted: (string | LanguageModelChatMessage)[] = [];
  readonly #scripts: Scripted[] = [];

  constructor(
    readonly id: string,
    readonly vendor = 'copilot',
    readonly family = id,
    readonly name = id.toUpperCase(),
    readonly version = '1',
    readonly maxInputTokens = 128_000,
  ) {}

  script(...s: Scripted[]): this {
    this.#scripts.push(...s);
    return this;
  }

  async sendRequest(messages: LanguageModelChatMessage[], options: RecordedRequest['options'], token: FakeToken): Promise<{ stream: AsyncIterable<unknown> }> {
    this.requests.push({ messages, options, token });
    const s = this.#scripts.shift() ?? { steps: [] };
    if (s.hangRequest === true) return never;
    if (s.reject !== undefined) throw s.reject;
    return { stream: play(s.steps ?? [], token) };
  }

  async countTokens(item: string | LanguageModelChatMessage): Promise<number> {
    this.counted.push(item);
    return fakeCount(item);
  }
}

export interface FakeLm {
  readonly api: Record<string, unknown>;
  /** What `vscode.lm.selectChatModels` offers. */
  readonly models: FakeLanguageModelChat[];
  readonly selectors: unknown[];
}

export function createFakeLmVscode(): FakeLm {
  const models: FakeLanguageModelChat[] = [];
  const selectors: unknown[] = [];
  const api: Record<string, unknown> = {
    LanguageModelTextPart,
    LanguageModelToolCallPart,
    LanguageModelToolResultPart,
    LanguageModelChatMessage,
    LanguageModelChatMessageRole,
    LanguageModelChatToolMode: { Auto: 1, Required: 2 },
    LanguageModelError,
    CancellationError,
    CancellationTokenSource,
    lm: {
      selectChatModels: async (selector?: { id?: string; vendor?: string; family?: string }) => {
        selectors.push(selector);
        return models.filter(
          (m) =>
            (selector?.id === undefined || m.id === selector.id) &&
            (selector?.vendor === undefined || m.vendor === selector.vendor) &&
            (selector?.family === undefined || m.family === selector.family),
        );
      },
    },
  };
  return { api, models, selectors };
}

/** Makes `require('vscode')` return the fake for modules loaded afterwards (the protocol tests' mechanism). */
export function installFakeLmVscode(): FakeLm {
  const fake = createFakeLmVscode();
  installFakeVscode(fake.api);
  return fake;
}
