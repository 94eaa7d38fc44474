// Opens a session for the CLI's offline commands (compact, rewind, undo-compaction): the chat's facade, over the engine without a turn loop.
import { AgentSession, type OfflineModel } from '../node/agentSession.js';
import { ChatFacade } from '../node/chatFacade.js';
import type { ModelInfo } from '../engine/tokens/modelLimits.js';
import { CliError, type Flags } from './args.js';
import { modelFromFlags } from './session.js';

/**
 * Opens a session through the engine facade without a turn loop (compact, rewind): the model comes from the flags
 * and what the session recorded. A missing or locked file becomes a one-line CliError.
 */
export async function openOffline(
  path: string,
  model: (info: ModelInfo) => OfflineModel,
  flags: Flags,
  more: { readonly roots?: readonly string[] } = {},
): Promise<ChatFacade> {
  try {
    return new ChatFacade(await AgentSession.openOffline({ sessionPath: path, model: (branch) => model(modelFromFlags(flags, branch)), ...more }));
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(e instanceof Error ? e.message : String(e), 1);
  }
}
