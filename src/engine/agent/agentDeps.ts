// What the Agent is built from (ports, model, settings), and two small helpers the agent's files share.
import type { BarrierModelInfo } from '../compaction/barrier.js';
import type { FlightRecord } from '../compaction/flightRecord.js';
import type { TriggerState } from '../compaction/triggers.js';
import type { ResolvedSettings } from '../config.js';
import type { InstructionPort } from '../instructions/port.js';
import type { Clock, EvidenceArchive, IdSource, Logger, ToolHost, TranscriptStore } from '../ports.js';
import type { EntryTokenCache } from '../tokens/entryCache.js';
import type { AgentModel } from './modelSwitch.js';
import type { AgentOptions } from './turnRequest.js';

export interface AgentDeps {
  readonly store: TranscriptStore;
  readonly archive: EvidenceArchive;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly cache: EntryTokenCache;
  readonly model: AgentModel;
  readonly tools: ToolHost;
  readonly resolved: ResolvedSettings;
  /** The system prompt a new cache epoch is frozen with (docs/behaviour.md#cache-epochs). */
  readonly systemPrompt: string;
  /** Pending intents restored from a previous run; a fresh state otherwise. */
  readonly triggers?: TriggerState;
  readonly recordFlight?: (record: FlightRecord) => void | Promise<void>;
  readonly logger?: Logger;
  readonly options?: Partial<AgentOptions>;
  /** Project-specific test-command patterns for the ledger (`capsule.ledger.testCommands`). */
  readonly testCommands?: readonly string[];
  /** Settings validated against another window (the user's raw values): used when an overflow teaches the real window. */
  readonly resolveFor?: (contextWindow: number, maxOutputTokens: number) => ResolvedSettings;
  /** Instruction files, skills and the mode (docs/user/instructions.md); without it the prompt is the system prompt alone. */
  readonly instructions?: InstructionPort;
  /** Tokens the bodies of active skills may take in a new epoch's base (`capsule.skills.reloadBudgetTokens`). */
  readonly skillReloadTokens?: number;
}

export function errText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'unknown error';
}

export function infoOf(m: AgentModel): BarrierModelInfo {
  return { provider: m.chat.provider, model: m.chat.model, contextWindow: m.contextWindow, maxOutputTokens: m.maxOutputTokens };
}
