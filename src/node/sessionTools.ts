// The tools of one session, composed in layers: the workspace tools, MCP servers' tools beside them, the instruction layer (the skill tool, Ask mode's refusals), and the task tool on top.
import { join } from 'node:path';
import { DEFAULT_SYSTEM_PROMPT } from '../engine/agent/systemPrompt.js';
import type { Agent } from '../engine/agent/turnLoop.js';
import { DEFAULT_EVIDENCE_PAGE_CHARS, runEvidenceToolFromArchive } from '../engine/compaction/evidence.js';
import { resolveSettings, type ResolvedSettings } from '../engine/config.js';
import type { Clock, IdSource, ToolHost } from '../engine/ports.js';
import type { EntryTokenCache } from '../engine/tokens/entryCache.js';
import { hardLimitOf } from '../engine/tokens/tokenLimits.js';
import { DEFAULT_FIXED_OVERHEAD_TOKENS } from '../engine/tokens/windowDefaults.js';
import { renderInstructionBlock } from '../engine/instructions/sources.js';
import { capsuleOperationId } from '../engine/transcript/modelInput.js';
import { modelTakesImages } from '../engine/transcript/images.js';
import type { BranchFigures } from '../engine/transcript/branchFigures.js';
import type { Entry } from '../engine/transcript/schema.js';
import type { AgentSessionConfig, resolveTarget } from './agentConfig.js';
import { NO_TOOLS, type Parts } from './agentParts.js';
import { sessionInstructions, type SessionInstructions } from './instructions/sessionInstructions.js';
import type { JsonlSessionStore } from './jsonlStore.js';
import { attachMcp, type AttachedMcp } from './mcp/sessionMcp.js';
import { withTaskTool } from './subagents/compose.js';
import { counterForModel } from './tokenCounter.js';
import { COMMAND_JOURNAL } from './tools/processGroups.js';
import { toolLimitsForWindow } from './tools/types.js';
import { WorkspaceToolHost } from './tools/workspaceToolHost.js';

/** The latest system update that records instruction sources, as the one-entry branch stampsInForce() reads: no walk of the history. */
function stampedOf(f: BranchFigures): readonly Entry[] {
  return f.lastStamped === undefined ? [] : [f.lastStamped];
}

export interface SessionTools {
  /** What the agent calls: the outermost layer. */
  readonly tools: ToolHost;
  readonly layer: SessionInstructions | undefined;
  readonly mcp: AttachedMcp | undefined;
  /** Settings for a window, with room left for what every request carries (the MCP schemas and the instruction block included). */
  readonly resolveFor: (contextWindow: number, maxOutputTokens: number) => ResolvedSettings;
  /** The settings the session starts with. */
  readonly resolved: ResolvedSettings;
}

/** The agent is built after its tools, which call back into it (checkpoint, evidence, window): `agent()` binds late. */
export async function composeSessionTools(
  config: AgentSessionConfig,
  parts: Parts,
  store: JsonlSessionStore,
  target: ReturnType<typeof resolveTarget>,
  cache: EntryTokenCache,
  agent: () => Agent | undefined,
  clock: Clock,
  ids: IdSource,
): Promise<SessionTools> {
  const ws = config.workspace;
  const started = target.resolved ?? resolveSettings({ raw: {} });
  const hardLimit = hardLimitOf(target.contextWindow, target.maxOutputTokens, started.settings.safetyReserveTokens);
  const workspaceTools: ToolHost =
    ws === undefined
      ? NO_TOOLS
      : new WorkspaceToolHost({
          roots: ws.roots,
          approve: ws.approve,
          trusted: ws.trusted,
          ...(ws.ripgrepPath === undefined ? {} : { ripgrepPath: ws.ripgrepPath }),
          // Results are bounded at creation relative to the window; explicit limits from the host still win.
          limits: { ...toolLimitsForWindow(hardLimit), ...ws.limits },
          ...(ws.keepBackgroundProcesses === undefined ? {} : { keepBackgroundProcesses: ws.keepBackgroundProcesses }),
          secrets: () => parts.secrets,
          ownFiles: () => parts.ownFiles,
          capture: parts.snapshots,
          commandJournal: join(parts.snapshots.dir, COMMAND_JOURNAL),
          evidence: (argsJson) => {
            const a = agent();
            return runEvidenceToolFromArchive(parts.archive, a === undefined ? undefined : capsuleOperationId(a.branch()), argsJson, {
              pageChars: DEFAULT_EVIDENCE_PAGE_CHARS,
            });
          },
          checkpoint: async (kind, note) => {
            const a = agent();
            if (a === undefined) throw new Error('the session is not ready');
            return a.recordCheckpoint(kind, note);
          },
        });
  const caps = toolLimitsForWindow(hardLimit);
  const counter = counterForModel(target.chat.model);
  const mcp =
    ws === undefined || config.mcp === undefined
      ? undefined
      : attachMcp(workspaceTools, config.mcp, {
          count: (t) => counter.count(t),
          hardLimit,
          roots: ws.roots,
          approve: ws.approve,
          trusted: ws.trusted,
          headBytes: caps.outputHeadBytes,
          tailBytes: caps.outputTailBytes,
          archive: parts.archive,
          capture: parts.snapshots,
          vision: () => modelTakesImages(agent()?.currentModel.chat.model ?? target.chat.model),
        });
  const baseTools: ToolHost = mcp?.tools ?? workspaceTools;
  // The MCP schemas (or their index) are fixed in every request: the window-derived defaults leave room for them.
  const mcpOverhead =
    mcp === undefined ? 0 : Math.max(0, counter.count(JSON.stringify(baseTools.schemas())) - counter.count(JSON.stringify(workspaceTools.schemas())));
  // Instruction files, skills and the mode: a port for the agent and a layer over the tools (the skill tool, Ask mode's refusals).
  const layer =
    config.instructionFiles === undefined || ws === undefined
      ? undefined
      : sessionInstructions(config.instructionFiles, ws.roots, baseTools, stampedOf(store.figures()), {
          tokens: (t) => cache.exactTokensOfText(t),
          window: () => agent()?.currentModel.contextWindow ?? target.contextWindow,
        });
  // The instruction block is in every request's system prompt too: the always-on files, the skill index and the mode as
  // read at open (a file that applies later, or an edit, is not counted until the chat is opened again).
  const instructionOverhead = layer === undefined ? 0 : cache.exactTokensOfText(renderInstructionBlock((await layer.port.read([])).sources));
  const overhead = mcpOverhead + instructionOverhead;
  const resolveFor = (contextWindow: number, maxOutputTokens: number): ResolvedSettings =>
    resolveSettings({
      raw: config.settings ?? {},
      env: config.env ?? process.env,
      model: { contextWindow, maxOutputTokens, fixedOverheadTokens: DEFAULT_FIXED_OVERHEAD_TOKENS + overhead },
    });
  // docs/subagents.md: the `task` tool runs children over these same tools (MCP, Ask mode and skills included), approvals and file capture.
  const tools = withTaskTool(layer?.tools ?? baseTools, config, parts, agent, clock, ids, config.systemPrompt ?? DEFAULT_SYSTEM_PROMPT);
  return { tools, layer, mcp, resolveFor, resolved: overhead > 0 ? resolveFor(target.contextWindow, target.maxOutputTokens) : started };
}
