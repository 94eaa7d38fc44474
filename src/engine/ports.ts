// The interfaces the pure engine needs from the outside world; src/node and src/vscode implement them.
import type { ModelMessage } from './transcript/modelInput.js';
import type { Effects } from './transcript/effects.js';
import type { BranchFigures } from './transcript/branchFigures.js';
import type { Entry, ImagePart, SessionHeader, Usage } from './transcript/schema.js';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with an AbortError when the signal fires. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface IdSource {
  /** A fresh unique id with the given prefix, e.g. `e_`, `ck_`, `op_`. */
  next(prefix: string): string;
}

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';
export interface Logger {
  log(level: LogLevel, message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** Problems found while loading a session; loading itself never throws. */
export type LoadProblemKind =
  | 'empty_file'
  | 'missing_header'
  | 'unknown_version'
  | 'torn_tail'
  | 'invalid_json'
  | 'invalid_entry'
  | 'oversized_line'
  | 'duplicate_id'
  | 'unknown_parent'
  | 'cycle'
  | 'unknown_leaf_target';

export interface LoadProblem {
  readonly kind: LoadProblemKind;
  /** 1-based line number in the file, when the problem belongs to a line. */
  readonly line?: number;
  readonly message: string;
}

export interface TranscriptStore {
  readonly header: SessionHeader;
  /** True when another window holds the writer lock, or the file cannot be safely written. */
  readonly readOnly: boolean;
  readonly readOnlyReason?: string;
  /** Valid entries in file order. */
  entries(): readonly Entry[];
  leafId(): string | null;
  /**
   * An accepted entry by id, when the store keeps that index anyway (the JSONL store does); readers then walk
   * the store's own index instead of building a second one over every entry.
   */
  get?(id: string): Entry | undefined;
  /** Running figures of the active branch (src/engine/transcript/branchFigures.ts), when the store keeps them. */
  figures?(): BranchFigures;
  /**
   * The active branch's entries of the given kinds, root first, when the store can find them without reading the
   * others (a compact history reads only those lines back); readers fall back to filtering the branch.
   */
  branchOfKinds?(kinds: ReadonlySet<string>): Iterable<Entry>;
  /** Writes one complete line; fsyncs durable kinds. Rejects when read-only. */
  append(entry: Entry): Promise<void>;
  close(): Promise<void>;
}

export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Readonly<Record<string, unknown>>;
}

export interface ChatRequest {
  readonly system: string;
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ToolSchema[];
  readonly toolChoice?: 'auto' | 'none';
  readonly maxOutputTokens?: number;
  readonly stream: boolean;
  /** Stable per chat, so a provider routes every request of the chat to the same warm prompt cache. */
  readonly cacheKey?: string;
}

export type ChatStreamEvent =
  | { readonly type: 'text'; readonly delta: string }
  | { readonly type: 'tool_call'; readonly call: { readonly id: string; readonly name: string; readonly arguments: string } }
  | { readonly type: 'usage'; readonly usage: Usage }
  | { readonly type: 'done'; readonly finishReason: string };

export interface ChatModel {
  readonly provider: string;
  readonly model: string;
  /** Where requests go, as host[:port] only (never a path, query or key): named on error cards (docs/behaviour.md#errors). */
  readonly endpoint?: string;
  /** Streams one completion; throws a ProviderError-shaped error on failure. */
  chat(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatStreamEvent>;
}

export interface ToolResult {
  readonly content: string;
  readonly isError: boolean;
  /** What the call did, when the tool measured it; stored on the tool_result entry. */
  readonly effects?: Effects;
  /** Images the result shows a vision model (an MCP tool's image content); sent as image parts after the tool messages. */
  readonly images?: readonly ImagePart[];
}

/** Which call of the transcript a run answers (a subagent's entries name their parent's call). */
export interface ToolCallContext {
  readonly callId: string;
  readonly turnId: string;
}

export interface ToolHost {
  schemas(): readonly ToolSchema[];
  run(name: string, argsJson: string, signal: AbortSignal, call?: ToolCallContext): Promise<ToolResult>;
  /** Called when a turn ends: stop what its tools left running; returns a line for the user if anything was stopped. */
  endTurn?(): Promise<string | undefined>;
}

export interface EvidenceSnapshot {
  readonly operationId: string;
  readonly checkpointId: string;
  readonly createdAt: string;
  readonly excluded: readonly ModelMessage[];
  readonly summarizerInput: readonly ModelMessage[];
  /** Indexes (excluded first, then summarizer input) of items that were already truncated projections. */
  readonly truncatedItems?: readonly number[];
}

export interface EvidenceArchive {
  save(snapshot: EvidenceSnapshot): Promise<void>;
  load(operationId: string): Promise<EvidenceSnapshot | undefined>;
  deleteAll(): Promise<void>;
}
