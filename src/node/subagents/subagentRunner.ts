// Runs the `task` tool (docs/subagents.md): a child Agent — the same turn loop, barrier, triggers and guards — over its own branch of the session file.
import type { AgentEvent, TurnResult } from '../../engine/agent/agentEvents.js';
import { answerPages, childCommandLines, childEffects, childOutcome } from '../../engine/agent/subagentResult.js';
import { childSystemPrompt, childToolNames, parseTaskArgs, TASK_TOOL_NAME } from '../../engine/agent/subagentTask.js';
import { Agent, type AgentModel, type AgentOptions } from '../../engine/agent/turnLoop.js';
import { DEFAULT_EVIDENCE_PAGE_CHARS, EVIDENCE_TOOL_NAME, runEvidenceToolFromArchive } from '../../engine/compaction/evidence.js';
import type { FlightRecord } from '../../engine/compaction/flightRecord.js';
import { TriggerState } from '../../engine/compaction/triggers.js';
import type { ResolvedSettings } from '../../engine/config.js';
import type { Clock, EvidenceArchive, IdSource, Logger, ToolCallContext, ToolHost, ToolResult, ToolSchema } from '../../engine/ports.js';
import type { SubagentSettings } from '../../engine/subagentSettings.js';
import type { EntryTokenCache } from '../../engine/tokens/entryCache.js';
import { capsuleOperationId } from '../../engine/transcript/modelInput.js';
import type { Entry } from '../../engine/transcript/schema.js';
import { anchorOf, SubagentStore, type ParentStore } from './subagentStore.js';
import { Slots } from './slots.js';

/** What the host hears about children: their start, every agent event of theirs, and their end. */
export type SubagentEvent =
  | { readonly type: 'subagent_start'; readonly id: string; readonly callId: string; readonly description: string }
  | { readonly type: 'subagent_event'; readonly id: string; readonly event: AgentEvent }
  | {
      readonly type: 'subagent_end';
      readonly id: string;
      readonly callId: string;
      readonly description: string;
      readonly status: TurnResult['status'];
      readonly requests: number;
      readonly tokens: number;
      readonly error?: string;
    };

export interface SubagentRunnerDeps {
  readonly store: ParentStore;
  readonly archive: EvidenceArchive;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** The parent's tools without `task`: what a child may be given. */
  readonly tools: ToolHost;
  /** The parent's current model and settings, read at each child's start (a switch or a learned window applies). */
  readonly model: () => AgentModel;
  readonly resolved: () => ResolvedSettings;
  /** The model a child uses instead when `capsule.subagents.model` names one. */
  readonly childModel?: () => AgentModel | undefined;
  readonly cacheFor: (model: string) => EntryTokenCache;
  readonly systemPrompt: string;
  readonly settings: SubagentSettings;
  readonly options?: Partial<AgentOptions>;
  /** The cap of one answer in the parent's input (the tool-result cap of the window), in characters. */
  readonly answerChars: () => number;
  readonly recordFlight?: (record: FlightRecord) => void | Promise<void>;
  readonly logger?: Logger;
  readonly testCommands?: readonly string[];
  readonly resolveFor?: (contextWindow: number, maxOutputTokens: number) => ResolvedSettings;
  readonly onEvent?: (e: SubagentEvent) => void;
}

/** The `task` argument that reads on in an answer that came back paged. */
interface PageArgs {
  readonly subagent: string;
  readonly page: number;
}

function pageArgs(argsJson: string): PageArgs | undefined {
  try {
    const a = JSON.parse(argsJson) as { subagent?: unknown; page?: unknown; prompt?: unknown };
    if (typeof a.subagent === 'string' && typeof a.page === 'number' && Number.isInteger(a.page) && a.prompt === undefined)
      return { subagent: a.subagent, page: a.page };
  } catch {
    // not a page request; the task parser says what is wrong
  }
  return undefined;
}

export class SubagentRunner {
  private readonly slots: Slots;
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly d: SubagentRunnerDeps) {
    this.slots = new Slots(d.settings.maxConcurrent);
  }

  /** Runs one `task` call to its end; never throws: every way out is a tool result for the parent. */
  async run(argsJson: string, signal: AbortSignal, call: ToolCallContext | undefined): Promise<ToolResult> {
    const page = pageArgs(argsJson);
    if (page !== undefined) return this.page(page);
    const parsed = parseTaskArgs(argsJson);
    if (!parsed.ok) return { isError: true, content: parsed.error };
    const args = parsed.args;
    const names = childToolNames(
      this.d.tools.schemas().map((t) => t.name),
      args,
    );
    if (names.unknown.length > 0) {
      return {
        isError: true,
        content: `task: ${names.unknown.map((n) => `"${n}"`).join(', ')} ${names.unknown.length === 1 ? 'is' : 'are'} not available to a subagent${args.readOnly ? ' with readOnly true' : ''}; nothing ran.`,
      };
    }
    if (this.d.store.readOnly) return { isError: true, content: 'task: this session is read-only; no subagent was started.' };
    const release = await this.slots.take(signal);
    if (release === undefined) return { isError: true, content: `Cancelled: the subagent "${args.description}" never started.` };
    const run = this.runChild(args.description, args.prompt, names.names, signal, call);
    // Kept until the child has written its last entry, even after a cancelled parent stopped waiting for it.
    const tracked = run.finally(() => {
      release();
      this.running.delete(tracked);
    });
    this.running.add(tracked);
    return tracked;
  }

  /** Resolves once every child has ended (the session waits for this before it closes its file). */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private async runChild(
    description: string,
    prompt: string,
    toolNames: readonly string[],
    signal: AbortSignal,
    call: ToolCallContext | undefined,
  ): Promise<ToolResult> {
    const d = this.d;
    const id = d.ids.next('sa_');
    const callId = call?.callId ?? id;
    const anchor = anchorOf(d.store, callId);
    const store = new SubagentStore(d.store, { id, toolCallId: callId, description, ...(anchor === undefined ? {} : { anchorId: anchor.id }) });
    const model = d.childModel?.() ?? d.model();
    let child: Agent | undefined;
    const tools = childTools(d.tools, toolNames, (argsJson) =>
      runEvidenceToolFromArchive(d.archive, child === undefined ? undefined : capsuleOperationId(child.branch()), argsJson, {
        pageChars: DEFAULT_EVIDENCE_PAGE_CHARS,
      }),
    );
    child = new Agent({
      store,
      archive: d.archive,
      clock: d.clock,
      ids: d.ids,
      cache: d.cacheFor(model.chat.model),
      model,
      tools,
      resolved: d.resolved(),
      systemPrompt: childSystemPrompt(d.systemPrompt),
      triggers: new TriggerState(),
      options: { ...d.options, maxRequestsPerTurn: d.settings.maxRequests },
      ...(d.recordFlight === undefined ? {} : { recordFlight: d.recordFlight }),
      ...(d.logger === undefined ? {} : { logger: d.logger }),
      ...(d.testCommands === undefined ? {} : { testCommands: d.testCommands }),
      ...(d.resolveFor === undefined ? {} : { resolveFor: d.resolveFor }),
    });
    const emit = (e: SubagentEvent): void => {
      try {
        d.onEvent?.(e);
      } catch {
        // a host's listener never breaks a child
      }
    };
    child.subscribe((event) => emit({ type: 'subagent_event', id, event }));
    emit({ type: 'subagent_start', id, callId, description });
    let result: TurnResult;
    try {
      await child.start();
      result = await child.runTurn({ userText: prompt, signal });
    } catch (err) {
      result = { turnId: '', status: 'failed', error: err instanceof Error ? err.message : String(err), requests: 0 };
    }
    const mine = store.written;
    const tokens = mine.reduce((n, e) => n + (e.type === 'assistant' ? (e.usage?.promptTokens ?? 0) + (e.usage?.completionTokens ?? 0) : 0), 0);
    emit({
      type: 'subagent_end',
      id,
      callId,
      description,
      status: result.status,
      requests: result.requests,
      tokens,
      ...(result.error === undefined ? {} : { error: result.error }),
    });
    const outcome = childOutcome(description, id, result, d.settings.maxRequests);
    const fx = childEffects(mine);
    const text = await this.bounded(id, withCommands(outcome.text, mine));
    return { isError: !outcome.ok, content: text, ...(fx === undefined ? {} : { effects: fx }) };
  }

  /** docs/subagents.md#results: an answer over the cap comes back paged; the whole answer is archived under the child's id. */
  private async bounded(id: string, text: string): Promise<string> {
    const size = Math.max(1000, this.d.answerChars());
    if (text.length <= size) return text;
    const pages = answerPages(text, size);
    await this.d.archive.save({
      operationId: id,
      checkpointId: id,
      createdAt: new Date(this.d.clock.now()).toISOString(),
      excluded: [{ role: 'assistant', content: text }],
      summarizerInput: [],
    });
    return `${pages[0] ?? ''}\n\n[Subagent answer, page 1 of ${pages.length}. Read on with task {"subagent": "${id}", "page": 2}.]`;
  }

  private async page(p: PageArgs): Promise<ToolResult> {
    const snapshot = await this.d.archive.load(p.subagent).catch(() => undefined);
    const first = snapshot?.excluded[0];
    if (snapshot === undefined || first === undefined) return { isError: true, content: `task: no paged answer of subagent ${p.subagent} is stored.` };
    const pages = answerPages(first.content, Math.max(1000, this.d.answerChars()));
    const text = pages[p.page - 1];
    if (text === undefined)
      return {
        isError: true,
        content: `task: subagent ${p.subagent}'s answer has ${pages.length} page${pages.length === 1 ? '' : 's'}; page ${p.page} does not exist.`,
      };
    const more =
      p.page < pages.length
        ? `\n\n[Page ${p.page} of ${pages.length}. Read on with task {"subagent": "${p.subagent}", "page": ${p.page + 1}}.]`
        : `\n\n[Page ${p.page} of ${pages.length}, the last.]`;
    return { isError: false, content: `${text}${more}` };
  }
}

/** The answer plus the commands the child ran, so the parent (and its next capsule's ledger) knows them. */
function withCommands(text: string, entries: readonly Entry[]): string {
  const lines = childCommandLines(entries);
  return lines.length === 0 ? text : `${text}\n\nCommands the subagent ran:\n${lines.join('\n')}`;
}

/** The parent's tools limited to `names`; the evidence tool reads the child's own capsule; a child's end never stops the parent's processes. */
function childTools(base: ToolHost, names: readonly string[], evidence: (argsJson: string) => Promise<ToolResult>): ToolHost {
  const schemas: readonly ToolSchema[] = Object.freeze(base.schemas().filter((s) => names.includes(s.name) && s.name !== TASK_TOOL_NAME));
  return {
    schemas: () => schemas,
    run: async (name, argsJson, signal) => {
      if (!schemas.some((s) => s.name === name))
        return { isError: true, content: `Unknown tool "${name}" for this subagent. Available tools: ${schemas.map((s) => s.name).join(', ')}.` };
      if (name === EVIDENCE_TOOL_NAME) return evidence(argsJson);
      return base.run(name, argsJson, signal);
    },
  };
}
