// Builds the parent's `task` tool for one AgentSession: the runner over the session's parts, its settings, and the child model choice.
import type { Agent, AgentModel } from '../../engine/agent/turnLoop.js';
import { resolveSettings, type ResolvedSettings } from '../../engine/config.js';
import type { Clock, IdSource, ToolHost } from '../../engine/ports.js';
import { resolveSubagentSettings } from '../../engine/subagentSettings.js';
import { hardLimitOf } from '../../engine/tokens/tokenLimits.js';
import { resolveTarget, type AgentSessionConfig } from '../agentConfig.js';
import type { Parts } from '../agentParts.js';
import { chatCacheKey, withCacheKey } from '../cacheKeyModel.js';
import { toolLimitsForWindow } from '../tools/types.js';
import { SubagentRunner } from './subagentRunner.js';
import { TaskToolHost } from './taskToolHost.js';

/** The tools with `task` added, or the tools unchanged when the session has no workspace or subagents are off. */
export function withTaskTool(
  base: ToolHost,
  config: AgentSessionConfig,
  parts: Parts,
  agent: () => Agent | undefined,
  clock: Clock,
  ids: IdSource,
  systemPrompt: string,
): ToolHost {
  if (config.workspace === undefined || config.subagents?.enabled === false) return base;
  const { settings, errors } = resolveSubagentSettings(config.subagents?.settings ?? {});
  for (const e of errors) config.logger?.log('warn', e);
  const parent = (): Agent => {
    const a = agent();
    if (a === undefined) throw new Error('the session is not ready');
    return a;
  };
  let childModel: AgentModel | undefined;
  if (settings.model !== '') {
    const chat = config.model.chat;
    if ('baseURL' in chat) {
      const t = resolveTarget({ chat: { ...chat, model: settings.model } }, config.settings, config.env);
      childModel = {
        chat: withCacheKey(t.chat, chatCacheKey(parts.store.header.id)),
        contextWindow: t.contextWindow,
        maxOutputTokens: t.maxOutputTokens,
        windowSource: t.windowSource,
      };
    } else config.logger?.log('warn', `capsule.subagents.model (${settings.model}) needs an OpenAI-compatible endpoint; subagents use the chat's model.`);
  }
  const runner = new SubagentRunner({
    store: parts.store,
    archive: parts.archive,
    clock,
    ids,
    tools: base,
    model: () => parent().currentModel,
    resolved: () => parent().settings,
    ...(childModel === undefined ? {} : { childModel: () => childModel }),
    cacheFor: (m) => parts.caches.forModel(m),
    systemPrompt,
    settings,
    ...(config.agentOptions === undefined ? {} : { options: config.agentOptions }),
    answerChars: () => {
      const m = parent().currentModel;
      return toolLimitsForWindow(hardLimitOf(m.contextWindow, m.maxOutputTokens, parent().settings.settings.safetyReserveTokens)).readMaxBytes;
    },
    recordFlight: (r) => parts.recorder.record(r),
    ...(config.logger === undefined ? {} : { logger: config.logger }),
    ...(config.testCommands === undefined ? {} : { testCommands: config.testCommands }),
    resolveFor: (contextWindow, maxOutputTokens): ResolvedSettings =>
      resolveSettings({ raw: config.settings ?? {}, env: config.env ?? process.env, model: { contextWindow, maxOutputTokens } }),
    ...(config.subagents?.onEvent === undefined ? {} : { onEvent: config.subagents.onEvent }),
  });
  return new TaskToolHost(base, () => runner);
}
