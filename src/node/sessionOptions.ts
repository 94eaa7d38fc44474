// What an AgentSession is opened and driven with beyond its config: the offline model, compaction and rewind options.
import type { ResolvedSettings } from '../engine/config.js';
import type { ChatModel, Logger, ToolSchema } from '../engine/ports.js';
import type { ModelInfo } from '../engine/tokens/modelLimits.js';
import type { Entry, Trigger } from '../engine/transcript/schema.js';
import type { RewindMode } from './sessionRewind.js';

/** What an offline session measures and compacts with. */
export interface OfflineModel {
  readonly model: ModelInfo;
  readonly provider: string;
  /** Writes the summary; without it the deterministic fallback capsule is made (no network). */
  readonly summarizer?: ChatModel;
  readonly resolved: ResolvedSettings;
  /** The tool schemas `chat` would send (so budgets and summary requests count them); none by default. */
  readonly tools?: readonly ToolSchema[];
  /** Project-specific test-command patterns for the capsule's ledger (`capsule.ledger.testCommands`). */
  readonly testCommands?: readonly string[];
}

/** A session opened without a turn loop (the CLI's `capsule compact` and `capsule rewind`). */
export interface OfflineSessionConfig {
  readonly sessionPath: string;
  /** Chooses the model from the session as loaded (the model it recorded, unless flags say otherwise). */
  readonly model: (branch: readonly Entry[]) => OfflineModel;
  readonly logger?: Logger;
  /** The folders whose files a rewind may restore (default: the folder the chat was started in, its header's cwd). */
  readonly roots?: readonly string[];
  /** The secret that signs the change log (default: the CLI's, see cliKeyPath). */
  readonly snapshotKeyFile?: string;
}

export interface CompactOptions {
  readonly focus?: string;
  /** Without one, the user's `/compact` (no ROI gate); with one, that trigger's rules. */
  readonly trigger?: Trigger;
  readonly signal?: AbortSignal;
}

/** What a user asked to rewind: which parts, and whether files edited outside Capsule may be overwritten. */
export interface RewindOptions {
  readonly mode?: RewindMode;
  readonly overwriteOutside?: boolean;
}
