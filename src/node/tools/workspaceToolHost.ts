// The ToolHost of the agent: the workspace tools (docs/behaviour.md#agent) behind one run() that never throws and answers every problem as a tool error.
import { UPDATE_PLAN_HINTS, UpdatePlanArgsSchema, parsePlanArgs, renderPlanLines } from '../../engine/compaction/taskPlan.js';
import type { ToolHost, ToolResult, ToolSchema } from '../../engine/ports.js';
import { parseToolArgs } from './toolArgs.js';
import { listFilesTool } from './listFiles.js';
import { readFileTool } from './readFile.js';
import { TOOL_NAMES, checkpointArgs, checkpointHints, toolSchemas } from './schemas.js';
import { searchTool } from './search.js';
import { CommandTracker } from './processGroups.js';
import { runCommandTool } from './runCommand.js';
import { DEFAULT_TOOL_LIMITS, ToolError, errorMessage, toolError, toolOk } from './types.js';
import type { ApprovalFn, CheckpointKind, ToolContext, ToolLimits } from './types.js';
import { editFileTool, writeFileTool } from './writeFile.js';
import { resolveWorkspacePath } from './paths.js';
import type { FileCapture } from '../snapshots/fileSnapshots.js';

export interface WorkspaceToolHostOptions {
  /** Workspace folders; relative paths resolve against the first. */
  readonly roots: readonly string[];
  readonly approve: ApprovalFn;
  /** Workspace trust, asked at each write or command (trust can change during a session). */
  readonly trusted: () => boolean;
  /** The ripgrep executable (default "rg", found on PATH). */
  readonly ripgrepPath?: string;
  readonly limits?: Partial<ToolLimits>;
  /** Runs read_compaction_evidence; without it the tool is not offered. */
  readonly evidence?: (argsJson: string, signal: AbortSignal) => Promise<ToolResult>;
  /** Records a checkpoint and returns its id; without it the checkpoint tool is not offered. */
  readonly checkpoint?: (kind: CheckpointKind, note: string) => Promise<string>;
  /** Keeps what rewind needs to restore the files that writes and commands change (docs/rewind.md). */
  readonly capture?: FileCapture;
  /** Values (the API key) kept out of every command's environment. */
  readonly secrets?: () => readonly string[];
  /** Let background processes a command started outlive the turn (default: they are stopped when it ends). */
  readonly keepBackgroundProcesses?: boolean;
  /** Capsule's own files, wherever they live (see sessionOwnedPaths); write_file and edit_file refuse them. */
  readonly ownFiles?: () => readonly string[];
  /** A file noting the commands that may still run, so a later run can stop what a killed one left (see stopLeftovers). */
  readonly commandJournal?: string;
}

type Runner = (argsJson: string, signal: AbortSignal) => Promise<ToolResult>;

export class WorkspaceToolHost implements ToolHost {
  private readonly ctx: ToolContext;
  private readonly toolList: readonly ToolSchema[];
  private readonly runners: ReadonlyMap<string, Runner>;
  private readonly capture: FileCapture | undefined;

  constructor(opts: WorkspaceToolHostOptions) {
    this.capture = opts.capture;
    const limits: ToolLimits = { ...DEFAULT_TOOL_LIMITS, ...opts.limits };
    this.ctx = {
      roots: [...opts.roots],
      limits,
      approve: opts.approve,
      trusted: opts.trusted,
      ripgrepPath: opts.ripgrepPath ?? 'rg',
      commands: new CommandTracker(undefined, opts.commandJournal),
      secrets: opts.secrets ?? (() => []),
      keepBackground: opts.keepBackgroundProcesses === true,
      ownFiles: opts.ownFiles ?? (() => []),
      ...(opts.capture === undefined ? {} : { capture: opts.capture }),
    };
    // Built once: the exact same list (order, text) on every request keeps the provider's prompt cache warm.
    this.toolList = Object.freeze(toolSchemas(limits, { checkpoint: opts.checkpoint !== undefined, evidence: opts.evidence !== undefined }));
    const ctx = this.ctx;
    const runners = new Map<string, Runner>([
      [TOOL_NAMES.readFile, (a) => readFileTool(ctx, a)],
      [TOOL_NAMES.listFiles, (a, s) => listFilesTool(ctx, a, s)],
      [TOOL_NAMES.search, (a, s) => searchTool(ctx, a, s)],
      [TOOL_NAMES.writeFile, (a, s) => this.aroundWrite(a, () => writeFileTool(ctx, a, s))],
      [TOOL_NAMES.editFile, (a, s) => this.aroundWrite(a, () => editFileTool(ctx, a, s))],
      [TOOL_NAMES.runCommand, (a, s) => runCommandTool(ctx, a, s)],
      [TOOL_NAMES.updatePlan, async (a) => runUpdatePlan(a)],
    ]);
    const { checkpoint, evidence } = opts;
    if (checkpoint !== undefined) runners.set(TOOL_NAMES.checkpoint, (a) => this.runCheckpoint(checkpoint, a));
    if (evidence !== undefined) runners.set(TOOL_NAMES.evidence, evidence);
    this.runners = runners;
  }

  schemas(): readonly ToolSchema[] {
    return this.toolList;
  }

  /** Stops what the turn's commands left running in the background (unless kept); a line for the user when there was any. */
  async endTurn(): Promise<string | undefined> {
    if (this.ctx.keepBackground || this.ctx.commands.size === 0) return undefined;
    const stopped = await this.ctx.commands.stop();
    if (stopped.length === 0) return undefined;
    return `Stopped ${stopped.length} background process${stopped.length === 1 ? '' : 'es'} started by this turn's commands (pid ${stopped.map((p) => p.pid).join(', ')}).`;
  }

  /** Stops every process the commands started, kept ones included (the session is closing). */
  async dispose(): Promise<void> {
    await this.ctx.commands.stop();
  }

  async run(name: string, argsJson: string, signal: AbortSignal): Promise<ToolResult> {
    const runner = this.runners.get(name);
    if (runner === undefined) {
      return toolError(`Unknown tool "${name}". Available tools: ${this.toolList.map((t) => t.name).join(', ')}.`);
    }
    if (signal.aborted) return toolError(`Cancelled: ${name} was not run.`);
    try {
      return withoutSecrets(await runner(typeof argsJson === 'string' ? argsJson : '', signal), this.ctx.secrets());
    } catch (err) {
      if (err instanceof ToolError) return toolError(err.message);
      if (signal.aborted) return toolError(`Cancelled: ${name} was stopped.`);
      return toolError(`${name} failed: ${errorMessage(err)}`);
    }
  }

  /** A write's file is resolved the way the tool resolves it; a path the tool will refuse is not captured. */
  private async aroundWrite(argsJson: string, run: () => Promise<ToolResult>): Promise<ToolResult> {
    const capture = this.capture;
    if (capture === undefined) return run();
    let path: unknown;
    try {
      path = (JSON.parse(argsJson) as { path?: unknown }).path;
    } catch {
      return run();
    }
    const target = typeof path === 'string' ? await resolveWorkspacePath(this.ctx.roots, path).catch(() => undefined) : undefined;
    return target === undefined ? run() : capture.aroundWrite(target.real, run);
  }

  private async runCheckpoint(record: (kind: CheckpointKind, note: string) => Promise<string>, argsJson: string): Promise<ToolResult> {
    const { kind, note } = parseToolArgs(TOOL_NAMES.checkpoint, argsJson, checkpointArgs, checkpointHints);
    const id = await record(kind, note);
    return toolOk(`Checkpoint ${id} recorded (${kind}).`);
  }
}

/** Shorter values would match ordinary text by accident (and are no real key). */
const MIN_SECRET_CHARS = 8;

/**
 * A key the agent finds anyway (a `.env` file read, `ps e` output) is masked before the result reaches the
 * transcript and the model: what a tool returns is stored and sent, so it must never carry the key.
 */
function withoutSecrets(result: ToolResult, secrets: readonly string[]): ToolResult {
  const keys = secrets.filter((s) => s.length >= MIN_SECRET_CHARS && result.content.includes(s));
  if (keys.length === 0) return result;
  let content = result.content;
  for (const k of keys) content = content.split(k).join('[API key hidden by Capsule]');
  return { ...result, content };
}

/** The plan lives in the transcript (the call and this result), so answering is all the tool does. */
function runUpdatePlan(argsJson: string): ToolResult {
  try {
    parseToolArgs(TOOL_NAMES.updatePlan, argsJson, UpdatePlanArgsSchema, UPDATE_PLAN_HINTS);
  } catch (err) {
    // The same wording as every tool's argument errors, plus what happened to the plan.
    if (err instanceof ToolError) return toolError(`${err.message} The previous plan stays.`);
    throw err;
  }
  const parsed = parsePlanArgs(argsJson.trim() === '' ? '{}' : argsJson);
  if (!parsed.ok) return toolError(parsed.error);
  if (parsed.plan.length === 0) return toolOk('Plan cleared.');
  return toolOk(['Plan updated:', ...renderPlanLines(parsed.plan)].join('\n'));
}
