// What the setup panel and the model picker show: why no model runs (no chat, no key, Restricted Mode, a failed start), the provider's setup state, and the models offered.
import type { ModelOption, SetupState } from '../../protocol/messages.js';
import type { ChatEvents } from './chatEvents.js';
import type { Providers } from './providers.js';
import type { SessionService } from './sessionService.js';
import type { SettingsReader } from './settings.js';

export class ChatSetup {
  #problem: string | undefined;
  #setup: SetupState | null = null;
  #models: ModelOption[] = [];

  constructor(
    private readonly providers: Providers,
    private readonly settings: SettingsReader,
    private readonly sessions: SessionService,
    private readonly events: ChatEvents,
  ) {}

  /** Why no chat or no model is available, in words. */
  get problem(): string | undefined {
    return this.sessions.error ?? this.#problem;
  }

  /** Why the agent is not running (the chat's own problem aside); set by the reconcile and a failed start. */
  set modelProblem(problem: string | undefined) {
    this.#problem = problem;
  }

  get modelProblem(): string | undefined {
    return this.#problem;
  }

  get setup(): SetupState | null {
    return this.#setup;
  }

  get models(): readonly ModelOption[] {
    return this.#models;
  }

  /** The picker's list again (the settings, the key or a learned window changed). */
  refreshModels(): void {
    this.#models = this.providers.modelOptions(this.settings.current);
  }

  /** The setup panel's state again, without reconnecting (a provider check's progress). */
  async show(): Promise<void> {
    const setup = await this.providers.setupState(this.settings.current, this.#problem);
    this.#setup = setup;
    this.events.fire({ kind: 'setup', setup });
  }
}
