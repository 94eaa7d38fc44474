// Opens the engine facade for a chat the session service already holds open: model, tools, Project Memory, sidecars in its archive folder.
import { join } from 'node:path';
import type { AgentListener } from '../../engine/agent/agentEvents.js';
import type { Logger } from '../../engine/ports.js';
import { AgentSession, type ModelConfig } from '../../node/agentSession.js';
import { ChatFacade } from '../../node/chatFacade.js';
import { readFlightRecords } from '../../node/flightRecorder.js';
import type { JsonlSessionStore } from '../../node/jsonlStore.js';
import type { ProjectMemory } from '../../node/projectMemory.js';
import { PROJECT_MEMORY_REASON } from '../../engine/portable/memoryPolicy.js';
import { errorMessage } from '../base/log.js';
import { readInstructionSettings, readLedgerTestCommands, readProjectMemoryInherit, readSubagentSettings } from './settings.js';
import type { ApprovalFn } from '../../node/tools/types.js';
import { capsuleSettingsFiles, workspaceToolsConfig } from './workspaceTools.js';
import type { McpSessionConfig } from '../../node/mcp/sessionMcp.js';
import type { SubagentEvent } from '../../node/subagents/subagentRunner.js';

export interface OpenAgentArgs {
  readonly store: JsonlSessionStore;
  /** `<storage>/archive/<id>`: deleting the chat deletes it, flight log included. */
  readonly archiveDir: string;
  readonly model: ModelConfig;
  readonly rawSettings: Readonly<Record<string, unknown>>;
  readonly memory: ProjectMemory;
  readonly logger: Logger;
  readonly listener: AgentListener;
  /** The progress of each subagent the chat's `task` calls run. */
  readonly subagentListener?: (e: SubagentEvent) => void;
  /** Pending intents an older host kept in workspace state; used only while the chat has no intents file. */
  readonly legacyIntents: unknown;
  readonly maxRequestsPerTurn?: number;
  readonly approve?: ApprovalFn;
  /** The extension's global storage: the key that signs file snapshots lives there, outside every workspace. */
  readonly userStorage?: string;
  /** Started MCP servers whose tools join the workspace tools. */
  readonly mcp?: McpSessionConfig;
}

export interface OpenedAgent {
  readonly session: ChatFacade;
  /** Compaction durations by checkpoint id, from the flight log (cards of earlier compactions show them). */
  readonly durations: Map<string, number>;
}

export async function openAgent(a: OpenAgentArgs): Promise<OpenedAgent> {
  const flightLog = join(a.archiveDir, 'flight.jsonl');
  const records = await readFlightRecords(flightLog).catch(() => []);
  const durations = new Map(records.flatMap((f) => (f.checkpointId === undefined ? [] : [[f.checkpointId, f.durationMs] as const])));
  // Project Memory seeds a chat once, when it starts. Appending it to a chat with history on every open would
  // change the model input of a resumed or rewound chat behind the user's back (docs/behaviour.md#transcript: reopening rebuilds exactly
  // the input it had; docs/behaviour.md#rewind: a rewind restores exactly that moment's input).
  // capsule.projectMemory.inherit = false: new chats start without it (the chat then shows no "inherited" line).
  const fresh = !a.store.tree.branch().some((e) => e.type === 'user') && readProjectMemoryInherit();
  const memory = fresh
    ? await a.memory.read().catch((err: unknown) => {
        a.logger.log('warn', `Project Memory was not loaded: ${errorMessage(err)}`);
        return undefined;
      })
    : undefined;
  // docs/behaviour.md#cache-epochs: the memory reaches the model as one appended system update, not as a rewritten prefix.
  const update = memory === undefined ? undefined : a.memory.asSystemUpdate();
  const workspace = workspaceToolsConfig(a.approve);
  const session = await AgentSession.open({
    sessionPath: a.store.path,
    store: a.store,
    archiveDir: a.archiveDir,
    flightLog,
    model: a.model,
    settings: a.rawSettings,
    env: process.env,
    ...(workspace === undefined ? {} : { workspace }),
    ...(a.mcp === undefined || workspace === undefined ? {} : { mcp: a.mcp }),
    instructions: update === undefined ? [] : [{ content: update, reason: PROJECT_MEMORY_REASON }],
    // Instruction files, skills and the chat mode (docs/user/instructions.md); none in Restricted Mode.
    instructionFiles: readInstructionSettings(),
    logger: a.logger,
    listener: a.listener,
    intentsFile: join(a.archiveDir, 'intents.json'),
    snapshotsDir: join(a.archiveDir, 'files'),
    ...(a.userStorage === undefined ? {} : { snapshotKeyFile: join(a.userStorage, 'snapshot.key') }),
    // Capsule's own writes are not the agent's effects: never written by its tools, never recorded or rewound.
    ownFiles: [...capsuleSettingsFiles(), a.memory.path, ...(a.userStorage === undefined ? [] : [a.userStorage])],
    triggerState: a.legacyIntents,
    ...(a.maxRequestsPerTurn === undefined ? {} : { agentOptions: { maxRequestsPerTurn: a.maxRequestsPerTurn } }),
    testCommands: readLedgerTestCommands((m) => a.logger.log('warn', m)),
    subagents: { settings: readSubagentSettings(), ...(a.subagentListener === undefined ? {} : { onEvent: a.subagentListener }) },
  });
  return { session: new ChatFacade(session), durations };
}
