// Shared types of the workspace tools: the approval callback, the limits, and the error whose message the model reads.
import type { ToolResult } from '../../engine/ports.js';
import type { FileCapture } from '../checkpoints/checkpointTypes.js';
import type { CommandTracker } from './processGroups.js';

export interface ApprovalRequest {
  /** `mcp`: a call of an MCP server's tool (the detail is its arguments). */
  readonly kind: 'write' | 'command' | 'mcp';
  /** One line for the approval card, e.g. "Edit src/app.ts" or "Run `npm test` in the workspace root". */
  readonly title: string;
  /** The unified diff of a write, or the command text. */
  readonly detail: string;
  /** Writes: the workspace-relative path, the real path, the text now (undefined: a new file) and the proposed text, for a diff editor. */
  readonly path?: string;
  readonly absolutePath?: string;
  readonly before?: string;
  readonly after?: string;
  /** Commands: the command line and its folder as the user reads it. */
  readonly command?: string;
  readonly cwd?: string;
  /** MCP calls: the server, the tool's own name on it, and the name the model calls it by (what "always allow" remembers). */
  readonly server?: string;
  readonly tool?: string;
  readonly name?: string;
}

/** The user's answer; `feedback` (a denial's reason) goes back to the model in the tool result. */
export interface ApprovalDecision {
  readonly approved: boolean;
  readonly feedback?: string;
  /** MCP calls: allow this tool for the rest of the chat without asking again. */
  readonly always?: boolean;
}

/** Asks the user; resolves true (or an approving decision) to go ahead. */
export type ApprovalFn = (req: ApprovalRequest, signal: AbortSignal) => Promise<boolean | ApprovalDecision>;

/** Most characters of a denial's feedback passed to the model: a reason, not a document. */
const MAX_FEEDBACK_CHARS = 4_000;

export function decisionOf(answer: boolean | ApprovalDecision): ApprovalDecision {
  return typeof answer === 'boolean' ? { approved: answer } : answer;
}

/** The sentence a denial's tool result ends with: the user's own words when they gave some. */
export function feedbackSentence(d: ApprovalDecision): string {
  const text = d.feedback?.trim() ?? '';
  return text === '' ? '' : ` The user said: ${JSON.stringify(text.slice(0, MAX_FEEDBACK_CHARS))}`;
}

export type CheckpointKind = 'milestone' | 'plan_pivot';

export interface ToolLimits {
  /** Most lines one read_file call returns. */
  readonly readMaxLines: number;
  /** Most bytes of file text one read_file call returns. */
  readonly readMaxBytes: number;
  readonly listDefaultEntries: number;
  readonly listMaxEntries: number;
  readonly searchDefaultResults: number;
  readonly searchMaxResults: number;
  /** Characters of one matching line shown by search; minified files have megabyte lines. */
  readonly searchLineChars: number;
  /** ripgrep is stopped after this long (a pathological regex, a huge tree); what it found so far is returned. */
  readonly searchTimeoutMs: number;
  readonly commandDefaultTimeoutMs: number;
  readonly commandMaxTimeoutMs: number;
  /** run_command keeps the first and the last this many bytes of output and drops the middle. */
  readonly outputHeadBytes: number;
  readonly outputTailBytes: number;
  /** A diff longer than this is cut in the approval dialog (the file is still written whole). */
  readonly diffMaxChars: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  readMaxLines: 2_000,
  readMaxBytes: 256 * 1024,
  listDefaultEntries: 500,
  listMaxEntries: 5_000,
  searchDefaultResults: 100,
  searchMaxResults: 1_000,
  searchLineChars: 300,
  searchTimeoutMs: 30_000,
  commandDefaultTimeoutMs: 120_000,
  commandMaxTimeoutMs: 600_000,
  outputHeadBytes: 100 * 1024,
  outputTailBytes: 100 * 1024,
  diffMaxChars: 200_000,
};

/** A failure whose message is written for the model; the host turns it into `{ isError: true }`. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

export function toolError(content: string): ToolResult {
  return { isError: true, content };
}

export function toolOk(content: string): ToolResult {
  return { isError: false, content };
}

/** The message of an unknown thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The errno code of a Node error, if any. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const code = (err as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** What every tool implementation receives from the host. */
export interface ToolContext {
  readonly roots: readonly string[];
  readonly limits: ToolLimits;
  readonly approve: ApprovalFn;
  readonly trusted: () => boolean;
  /** The ripgrep executable: a path, or "rg" to look it up on PATH. */
  readonly ripgrepPath: string;
  /** The processes run_command started, so they can be stopped at the turn's end and on exit. */
  readonly commands: CommandTracker;
  /** Values (API keys) that must never appear in a command's environment. */
  readonly secrets: () => readonly string[];
  /** Background processes survive the turn's end (they still die with Capsule). */
  readonly keepBackground: boolean;
  /** Capsule's own files (session, archive, locks, flight log): the write tools refuse them. */
  readonly ownFiles: () => readonly string[];
  /** The file checkpoints of the session: a command's checkpoint also measures its effects (one scan for both). */
  readonly capture?: FileCapture;
}

/** "256 KB" for whole kilobytes, else "450 bytes": caps in messages must be exact enough to act on. */
export function formatBytes(n: number): string {
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024} KB` : `${n} bytes`;
}

/** One tool result may take at most this share of the hard limit, so a single result always fits beside the rest. */
const RESULT_SHARE_OF_HARD_LIMIT = 0.25;
/** Bytes per token assumed when turning a token budget into a byte cap: code and JSON run about 3, prose 4. */
const BYTES_PER_TOKEN = 3;

/**
 * Read and command caps for a window: a result larger than a quarter of the hard limit comes back paged (read_file
 * says how to read on) or head + tail (run_command), so one result can never exceed what the window holds.
 */
export function toolLimitsForWindow(hardLimit: number, base: ToolLimits = DEFAULT_TOOL_LIMITS): ToolLimits {
  const bytes = Math.max(1024, Math.floor(Math.max(0, hardLimit) * RESULT_SHARE_OF_HARD_LIMIT * BYTES_PER_TOKEN));
  const half = Math.floor(bytes / 2);
  return {
    ...base,
    readMaxBytes: Math.min(base.readMaxBytes, bytes),
    outputHeadBytes: Math.min(base.outputHeadBytes, half),
    outputTailBytes: Math.min(base.outputTailBytes, half),
    diffMaxChars: base.diffMaxChars,
  };
}
