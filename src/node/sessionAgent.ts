// The engine objects an AgentSession is built around: the turn loop over the session's parts, or a barrier alone for an offline session.
import { DEFAULT_SYSTEM_PROMPT } from '../engine/agent/systemPrompt.js';
import { Agent } from '../engine/agent/turnLoop.js';
import { PreflightBarrier } from '../engine/compaction/barrier.js';
import type { Clock, IdSource, Logger } from '../engine/ports.js';
import type { EntryTokenCache } from '../engine/tokens/entryCache.js';
import type { AgentSessionConfig, resolveTarget } from './agentConfig.js';
import type { Parts } from './agentParts.js';
import { chatCacheKey, withCacheKey } from './cacheKeyModel.js';
import type { JsonlSessionStore } from './jsonlStore.js';
import { nodeClock, nodeIds } from './nodeClock.js';
import type { OfflineModel } from './sessionOptions.js';
import type { SessionTools } from './sessionTools.js';

/** What the session's tools were composed with and into (sessionTools.ts). */
export interface AgentBuild extends Pick<SessionTools, 'tools' | 'layer' | 'resolveFor' | 'resolved'> {
  readonly cache: EntryTokenCache;
  readonly clock: Clock;
  readonly ids: IdSource;
}

/** The turn loop over the session's parts; the chat model carries the session's cache key. */
export function newSessionAgent(
  config: AgentSessionConfig,
  parts: Parts,
  store: JsonlSessionStore,
  target: ReturnType<typeof resolveTarget>,
  b: AgentBuild,
): Agent {
  const { tools, layer, resolveFor, resolved, cache, clock, ids } = b;
  return new Agent({
    store,
    archive: parts.archive,
    clock,
    ids,
    cache,
    model: {
      chat: withCacheKey(target.chat, chatCacheKey(parts.store.header.id)),
      contextWindow: target.contextWindow,
      maxOutputTokens: target.maxOutputTokens,
      windowSource: target.windowSource,
    },
    tools,
    ...(layer === undefined
      ? {}
      : {
          instructions: layer.port,
          ...(config.instructionFiles?.skillReloadTokens === undefined ? {} : { skillReloadTokens: config.instructionFiles.skillReloadTokens }),
        }),
    resolved,
    systemPrompt: config.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    triggers: parts.triggers,
    recordFlight: (r) => parts.recorder.record(r),
    ...(config.logger === undefined ? {} : { logger: config.logger }),
    ...(config.agentOptions === undefined ? {} : { options: config.agentOptions }),
    resolveFor,
    ...(config.testCommands === undefined ? {} : { testCommands: config.testCommands }),
  });
}

/** The barrier `capsule compact`, `rewind` and `budget` use without a turn loop: no epoch or model entries of its own. */
export function offlineBarrier(store: JsonlSessionStore, parts: Parts, m: OfflineModel, logger: Logger | undefined): PreflightBarrier {
  return new PreflightBarrier({
    store,
    archive: parts.archive,
    clock: nodeClock,
    ids: nodeIds,
    cache: parts.caches.forModel(m.model.model),
    ...(m.summarizer === undefined ? {} : { model: m.summarizer }),
    tools: m.tools ?? [],
    defaultSystem: DEFAULT_SYSTEM_PROMPT,
    resolved: m.resolved,
    modelInfo: { provider: m.provider, model: m.model.model, contextWindow: m.model.contextWindow, maxOutputTokens: m.model.maxOutputTokens },
    triggers: parts.triggers,
    recordFlight: (r) => parts.recorder.record(r),
    ...(logger === undefined ? {} : { logger }),
    ...(m.testCommands === undefined ? {} : { testCommands: m.testCommands }),
  });
}
