// Builds a Capsule session from a foreign transcript: one linear main chain, sidechains on their own branches, unique tool-call ids, every pairing problem reported.
import { personTextOf } from '../effects/personText.js';
import type { IdSource } from '../ports.js';
import type { Effects } from '../transcript/effects.js';
import { CURRENT_VERSION, type Entry, type SessionHeader, type ToolCall } from '../transcript/schema.js';
import { JsonStringBytes, resultWithJson } from './jsonString.js';
import type { ReportBuilder } from './report.js';
import type { SubagentRef } from '../transcript/subagentRef.js';

export interface BuilderOptions {
  readonly sessionId: string;
  readonly cwd: string;
  /** ISO time for entries whose source has none. */
  readonly now: string;
  readonly ids: IdSource;
  /** Recorded on imported assistant entries that name no model. */
  readonly model?: string;
  /**
   * Receives each main-chain entry as it is made, instead of the builder keeping it (a long import then never holds
   * its entries). Sidechains still collect until finish(); the first one throws SidechainWhileStreaming.
   */
  readonly sink?: (e: Entry) => void;
}

/** A sidechain began while the main chain went to a sink: the caller imports again with the entries kept. */
export class SidechainWhileStreaming extends Error {
  override readonly name = 'SidechainWhileStreaming';
}

interface Chain {
  readonly entries: Entry[];
  /** The latest entry, also when `entries` is not kept (a streamed main chain). */
  last?: Entry;
  hasSystem?: boolean;
  /** For a sidechain: the main-chain entry it branched from (null when the main chain was still empty). */
  readonly fork?: string | null;
  /** Call id in the source → id in the session, for the calls still expecting a result. */
  readonly open: Map<string, { id: string; name: string; where: string }>;
  /** A sidechain spawned by an open call becomes that call's subagent (docs/session-format.md#subagents). */
  readonly subagent?: SubagentRef;
}

/** The names other agents give their delegation tool. */
const DELEGATION_TOOLS = new Set(['Task', 'Agent', 'task']);

const TITLE_MAX = 80;

function validTime(t: unknown): string | undefined {
  return typeof t === 'string' && t.length > 0 && t.length <= 64 && !Number.isNaN(Date.parse(t)) ? t : undefined;
}

export class ImportBuilder {
  private readonly main: Chain = { entries: [], open: new Map() };
  private readonly sides = new Map<string, Chain>();
  private readonly usedIds = new Set<string>();
  private current: Chain = this.main;
  /**
   * Delegation calls of the main chain not yet matched to a sidechain, oldest first. Their results may already be
   * placed (results pair by id, wherever the file wrote them), so an open call is not the only possible spawner.
   */
  private readonly delegations: { readonly callId: string; readonly entryId: string }[] = [];
  private title: string | undefined;
  /** Entries made so far, on every chain. */
  count = 0;
  cwd: string;

  constructor(
    private readonly opts: BuilderOptions,
    readonly report: ReportBuilder,
  ) {
    this.cwd = opts.cwd;
  }

  /** Later entries go to the sidechain `key` (its own root), or back to the main chain with undefined. */
  useChain(key: string | undefined): void {
    if (key === undefined) {
      this.current = this.main;
      return;
    }
    let c = this.sides.get(key);
    if (!c) {
      if (this.opts.sink !== undefined) throw new SidechainWhileStreaming(`sidechain ${key}`);
      // Branch before a call still waiting for its result (the Task that spawned the sidechain), so no tool pair is split.
      const last = this.main.last;
      const calls = [...this.main.open.values()];
      const open = calls.find((x) => DELEGATION_TOOLS.has(x.name));
      const pending = open === undefined ? this.delegations[0] : this.delegations.find((d) => d.callId === open.id);
      const spawner = open !== undefined && last !== undefined ? { callId: open.id, entryId: pending?.entryId ?? last.id } : pending;
      if (spawner !== undefined) {
        // The Task call that spawned this sidechain: it imports as that call's subagent, on its own root.
        this.delegations.splice(this.delegations.indexOf(pending ?? spawner), pending === undefined ? 0 : 1);
        const id = `sa_${key
          .replace(/^sidechain:/, '')
          .replace(/[^A-Za-z0-9_-]/g, '_')
          .slice(0, 100)}`;
        c = { entries: [], open: new Map(), fork: null, subagent: { id, toolCallId: spawner.callId, anchorId: spawner.entryId } };
      } else {
        const fork = last === undefined ? null : this.main.open.size > 0 ? last.parentId : last.id;
        c = { entries: [], open: new Map(), fork };
      }
      this.sides.set(key, c);
    }
    this.current = c;
  }

  private base(timestamp: unknown): { id: string; parentId: string | null; timestamp: string } {
    return { id: this.opts.ids.next('e_'), parentId: this.current.last?.id ?? this.current.fork ?? null, timestamp: validTime(timestamp) ?? this.opts.now };
  }

  private push(e: Entry): void {
    const c = this.current;
    const ref = c.subagent;
    const entry = ref === undefined ? e : { ...e, subagent: c.entries.length === 0 ? ref : { id: ref.id, toolCallId: ref.toolCallId } };
    c.last = entry;
    if (e.type === 'system_update') c.hasSystem = true;
    this.count++;
    const sink = this.opts.sink;
    if (c === this.main && sink !== undefined) sink(entry);
    else c.entries.push(entry);
    if (c !== this.main) this.report.counts.sidechainEntries++;
  }

  private closeOpen(where: string): void {
    const open = this.current.open;
    if (open.size > 0) this.report.warn(`${where}: tool call(s) ${[...open.values()].map((c) => c.id).join(', ')} have no result`);
    open.clear();
  }

  user(content: string, o: { readonly where: string; readonly timestamp?: unknown; readonly injected?: boolean }): void {
    if (content.trim() === '') {
      this.report.drop('empty user message', 'no text');
      return;
    }
    const injected = o.injected === true || personTextOf(content) === null;
    if (injected) this.report.counts.injectedTurns++;
    else if (this.current === this.main) this.title ??= titleOf(personTextOf(content) ?? '');
    const { id, parentId, timestamp } = this.base(o.timestamp);
    this.push(injected ? { id, parentId, timestamp, type: 'user', content, injected: true } : { id, parentId, timestamp, type: 'user', content });
    this.report.counts.userTurns++;
  }

  system(content: string, reason: string, timestamp?: unknown): void {
    if (content.trim() === '') return;
    const first = this.current.hasSystem !== true;
    this.push({ ...this.base(timestamp), type: 'system_update', mode: first ? 'base' : 'append', content, reason });
    this.report.counts.systemMessages++;
  }

  /** An assistant message; reused call ids are renamed so every call and its result pair up exactly once. */
  assistant(content: string, calls: readonly ToolCall[], o: { readonly where: string; readonly timestamp?: unknown; readonly model?: string }): void {
    this.closeOpen(o.where);
    const toolCalls: ToolCall[] = [];
    for (const c of calls) {
      let id = c.id;
      if (this.usedIds.has(id)) {
        let n = 2;
        while (this.usedIds.has(`${c.id}_${n}`)) n++;
        id = `${c.id}_${n}`;
        this.report.counts.renamedIds++;
      }
      this.usedIds.add(id);
      this.current.open.set(c.id, { id, name: c.name, where: o.where });
      toolCalls.push(id === c.id ? c : { ...c, id });
    }
    const model = o.model ?? this.opts.model;
    // Literals rather than spreads (the import makes one per message): the same keys, in the schema's order.
    const { id, parentId, timestamp } = this.base(o.timestamp);
    const entry: Entry =
      model === undefined
        ? { id, parentId, timestamp, type: 'assistant', content, toolCalls }
        : { id, parentId, timestamp, type: 'assistant', content, toolCalls, model };
    this.push(entry);
    if (this.current === this.main) for (const c of toolCalls) if (DELEGATION_TOOLS.has(c.name)) this.delegations.push({ callId: c.id, entryId: entry.id });
    this.report.counts.assistantTurns++;
    this.report.counts.toolCalls += toolCalls.length;
  }

  /** The name a pending call was made with, if it is waiting for a result. */
  pendingName(sourceCallId: string): string | undefined {
    return this.current.open.get(sourceCallId)?.name;
  }

  /** A tool result; its text as a string, or as the source's JSON string (read only if something asks). */
  toolResult(
    sourceCallId: string,
    content: string | JsonStringBytes,
    o: { readonly where: string; readonly isError?: boolean; readonly effects?: Effects; readonly timestamp?: unknown; readonly name?: string },
  ): void {
    const call = this.current.open.get(sourceCallId);
    if (call) this.current.open.delete(sourceCallId);
    else this.report.warn(`${o.where}: tool result for call ${sourceCallId} matches no pending tool call`);
    const { id, parentId, timestamp } = this.base(o.timestamp);
    const toolCallId = call?.id ?? sourceCallId;
    const toolName = call?.name ?? o.name ?? '';
    const isError = o.isError === true;
    const effects = o.effects;
    if (content instanceof JsonStringBytes && effects === undefined)
      this.push(resultWithJson({ id, parentId, timestamp, toolCallId, toolName, isError }, content));
    else {
      const text = content instanceof JsonStringBytes ? content.text : content;
      this.push(
        effects === undefined
          ? { id, parentId, timestamp, type: 'tool_result', toolCallId, toolName, content: text, isError }
          : { id, parentId, timestamp, type: 'tool_result', toolCallId, toolName, content: text, isError, effects },
      );
    }
    this.report.counts.toolResults++;
  }

  /**
   * The main chain, then each sidechain as a branch off the entry it started from, then (when there are
   * sidechains) a leaf move back to the end of the main conversation, which is where the chat continues.
   */
  finish(where: string): { header: SessionHeader; entries: Entry[] } {
    for (const c of [...this.sides.values(), this.main]) {
      this.current = c;
      this.closeOpen(where);
    }
    this.current = this.main;
    const header: SessionHeader = {
      type: 'session',
      version: CURRENT_VERSION,
      id: this.opts.sessionId,
      createdAt: this.main.entries[0]?.timestamp ?? this.opts.now,
      cwd: this.cwd,
      ...(this.title === undefined ? {} : { title: this.title }),
    };
    const sides = [...this.sides.values()].flatMap((c) => c.entries);
    const mainLeaf = this.main.last?.id ?? null;
    // Subagent entries never move the leaf; only plain sidechain branches need the move back.
    const last = [...this.sides.values()]
      .filter((c) => c.subagent === undefined)
      .flatMap((c) => c.entries)
      .pop();
    const back: Entry[] =
      last === undefined
        ? []
        : [
            {
              type: 'leaf',
              id: this.opts.ids.next('e_'),
              parentId: last.id,
              timestamp: last.timestamp,
              targetId: mainLeaf,
              reason: 'imported sidechains stay on their own branch',
            },
          ];
    this.count += back.length;
    return { header, entries: [...this.main.entries, ...sides, ...back] };
  }

  /** The session's title and folder once they can no longer change (the person's first words are in), else undefined. */
  settled(): { readonly cwd: string; readonly title: string } | undefined {
    return this.title === undefined ? undefined : { cwd: this.cwd, title: this.title };
  }
}

function titleOf(content: string): string | undefined {
  const first = content.trim().split('\n', 1)[0]?.trim() ?? '';
  if (first === '') return undefined;
  return first.length <= TITLE_MAX ? first : `${first.slice(0, TITLE_MAX - 1)}…`;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
