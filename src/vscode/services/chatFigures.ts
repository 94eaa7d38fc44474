// The open chat's figures (the meter, /budget, the status bar): measured again when an entry is appended, the agent's model or compaction state changes, or the leaf moves.
import type { Logger } from '../../engine/ports.js';
import type { Budget } from '../../engine/tokens/budget.js';
import { errorMessage } from '../base/log.js';
import type { ChatEvents } from './chatEvents.js';
import type { OpenChatFacade } from './chatPorts.js';
import { Meter, type MeterBasis } from './meterBasis.js';
import type { SettingsReader } from './settings.js';

export class ChatFigures {
  readonly #meter = new Meter();
  #budget: Budget | undefined;
  /** When `#budget` was measured: a capsule's age moves with the clock between measurements. */
  #measuredAt = 0;

  constructor(
    private readonly settings: SettingsReader,
    private readonly events: ChatEvents,
    private readonly logger: Logger,
  ) {}

  /** The figures as of the last change; only the last capsule's age is brought up to now. */
  get budget(): Budget | undefined {
    const b = this.#budget;
    if (!b?.lastCapsule) return b;
    return { ...b, lastCapsule: { ...b.lastCapsule, ageMs: b.lastCapsule.ageMs + Math.max(0, Date.now() - this.#measuredAt) } };
  }

  /** What the chat counts with: the agent's model, tools and token cache, else the settings' model with no tools. */
  basis(chat: OpenChatFacade | undefined): MeterBasis {
    return this.#meter.basisOf(chat?.online === true ? chat : undefined, this.settings.current);
  }

  /** Recomputes the figures of `chat` (the agent's own budget when one runs) and announces them. */
  remeasure(chat: OpenChatFacade | undefined): void {
    try {
      this.#measuredAt = Date.now();
      this.#budget = chat === undefined ? undefined : chat.online ? chat.budget() : chat.budget(this.basis(chat), this.#measuredAt);
    } catch (err) {
      this.#budget = undefined;
      this.logger.log('error', 'Could not compute the context budget', { error: errorMessage(err) });
    }
    this.events.fire({ kind: 'budget' });
  }
}
