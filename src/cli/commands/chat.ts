// `capsule chat`: one headless agent turn on a session file against any OpenAI-compatible endpoint, printing the events as they happen.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AgentEvent, TurnStatus } from '../../engine/agent/agentEvents.js';
import type { BarrierEvent } from '../../engine/compaction/barrierEvents.js';
import { faultAdvice, faultLine } from '../../engine/provider/turnFault.js';
import { windowText } from '../../engine/tokens/modelLimits.js';
import { AgentSession, type ModelConfig } from '../../node/agentSession.js';
import { ChatFacade } from '../../node/chatFacade.js';
import { JsonlSessionStore } from '../../node/jsonlStore.js';
import { cliLimitsPath, LearnedLimitsFile, learnedOn, type LearnedLimit } from '../../node/learnedLimits.js';
import { SERVER_WINDOW_SOURCE_TEXT, ServerWindowsFile, serverWindowOnce, serverWindowsPath } from '../../node/providers/windowQuery.js';
import { COMMAND_JOURNAL, leftoverReport, stopLeftovers } from '../../node/tools/processGroups.js';
import { FileSnapshots } from '../../node/snapshots/fileSnapshots.js';
import type { ApprovalRequest } from '../../node/tools/types.js';
import { CliError, type Flags, type ParsedCli } from '../args.js';
import { apiKeyFromFlags } from '../keyHandover.js';
import { limitFlags, recordedModelOf, type sessionModel } from '../session.js';
import { settingsFlags } from '../settingsFlags.js';
import { archiveDirFor, flightLogFor } from './compact.js';
import { answerLine, inline } from '../terminalText.js';
import { splitMcpSets, startCliMcp } from '../mcpSetup.js';
import { CHAT_USAGE } from '../usage.js';
import { isChatMode } from '../../engine/instructions/mode.js';
import { chatImages } from './chatImages.js';
import { subagentPrinter } from '../subagentPrinter.js';

export { CHAT_USAGE };

/** Exit status of a run the user interrupted (128 + SIGINT), by shell convention. */
const EXIT_CANCELLED = 130;
const MAX_TOOL_LINE = 200;

export function exitCodeOf(status: TurnStatus): number {
  return status === 'completed' ? 0 : status === 'cancelled' ? EXIT_CANCELLED : 1;
}

function oneLine(text: string, max = MAX_TOOL_LINE): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

interface Endpoint {
  readonly baseURL: string;
  readonly model: string;
  readonly apiKey: string;
}

function endpointFlags(flags: Flags): Endpoint {
  const baseURL = typeof flags['base-url'] === 'string' ? flags['base-url'].trim() : '';
  if (baseURL === '') throw new CliError(`missing --base-url: ${CHAT_USAGE}`);
  if (!/^https?:\/\//.test(baseURL)) throw new CliError(`--base-url must be an http:// or https:// URL (got '${baseURL}')`);
  const model = typeof flags.model === 'string' ? flags.model.trim() : '';
  if (model === '') throw new CliError(`missing --model: ${CHAT_USAGE}`);
  return { baseURL, model, apiKey: apiKeyFromFlags(flags) };
}

function workspaceFlag(flags: Flags): string {
  const dir = resolve(typeof flags.workspace === 'string' ? flags.workspace : process.cwd());
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliError(`--workspace ${dir}: not a folder`);
  return dir;
}

/** Prints agent events as lines; streamed text is written line by line as it arrives. */
export class EventPrinter {
  private pending = '';

  constructor(private readonly out: (s: string) => void) {}

  handle(e: AgentEvent): void {
    switch (e.type) {
      case 'text_delta': {
        const lines = (this.pending + e.delta).split('\n');
        this.pending = lines.pop() ?? '';
        for (const l of lines) this.out(answerLine(l));
        break;
      }
      case 'assistant_end':
        this.flush();
        if (e.discarded === true && e.content !== '') this.status('[discarded: the provider cut this answer off; it is generated again]');
        break;
      case 'tool_start':
        this.status(`[tool] ${e.name} ${oneLine(e.arguments)}`);
        break;
      case 'tool_end':
        this.status(`[tool] ${e.name} → ${e.isError ? 'error' : 'ok'} (${Math.round(e.durationMs)} ms)${e.isError ? `: ${oneLine(e.content)}` : ''}`);
        break;
      case 'barrier':
        this.barrier(e.event);
        break;
      case 'cache_metrics':
        this.status(`[cache] ${e.metrics.line}`);
        break;
      case 'notice':
        this.status(`[${e.level === 'info' ? 'notice' : e.level}] ${e.message}`);
        break;
      case 'model_changed':
        this.status(
          `[model] ${e.provider}/${e.model} (${windowText(e)}, max output ${e.maxOutputTokens})${e.handoff ? ' after a protective handoff compaction' : ''}`,
        );
        break;
      case 'turn_end':
        this.flush();
        this.status(`[turn ${e.status}]${e.error ? ` ${e.error}` : ''}`);
        // The error card's facts in one line (host · status · the provider's words), then what to do.
        if (e.fault !== undefined) {
          this.status(`[error] ${faultLine(e.fault)}`);
          this.status(`[hint] ${faultAdvice(e.fault).hint} Retry: capsule chat --retry with the same --session.`);
        }
        break;
      case 'turn_start':
      case 'assistant_start':
      case 'loop_detected': // turn_end carries the one-line reason
        break;
    }
  }

  private barrier(b: BarrierEvent): void {
    switch (b.type) {
      case 'compaction_start':
        this.flush();
        this.status(`[compaction] ${b.plan.trigger}${b.plan.level > 0 ? ` level ${b.plan.level}` : ''}: compacting ${b.plan.tokensBefore} tokens…`);
        break;
      case 'compaction_end':
        this.status(`[compaction] ${b.line}`);
        break;
      case 'preflight_blocked':
        this.status(`[blocked] ${b.message}`);
        break;
      case 'calibration_fallback':
        this.status(`[notice] ${b.message}`);
        break;
      case 'compaction_progress':
        break; // the live percentage is for the UI; a log would only repeat it
    }
  }

  /** Capsule's own line: whatever it quotes (provider words, tool and file names) stays on it, visible. */
  private status(line: string): void {
    this.out(inline(line));
  }

  private flush(): void {
    if (this.pending !== '') this.out(answerLine(this.pending));
    this.pending = '';
  }
}

/** A learned window is never used silently: the line says where it came from, how to drop it, and when a flag wins over it. */
export function learnedWindowLine(entry: LearnedLimit | undefined, flagWindow: number | undefined): string | undefined {
  if (entry === undefined) return undefined;
  const learned = `the window of ${entry.contextWindow.toLocaleString('en-US')} tokens learned from this endpoint's overflow error${learnedOn(entry)}`;
  if (flagWindow !== undefined) return `[window] --window ${flagWindow.toLocaleString('en-US')} wins over ${learned}`;
  return `[window] Using ${learned}; 'capsule limits forget ${entry.endpoint} ${entry.model}' drops it`;
}

/**
 * The session, opened once and tail first (docs/loading.md) when it exists: the turn runs on this store, and the model
 * it recorded last is read from it (the model_change in force and the replies after it), not from a second load.
 */
async function openRecorded(path: string): Promise<{ readonly store: JsonlSessionStore | undefined; readonly recorded: ReturnType<typeof sessionModel> }> {
  if (!existsSync(path)) return { store: undefined, recorded: undefined };
  // Indexed on this thread: the turn waits for the whole index anyway (its first append is checked against every id),
  // and the index thread's isolate and batches would cost about 15 MB at a large session's peak (docs/loading.md#indexing).
  const store = await JsonlSessionStore.open(path, { tailFirst: true, indexThread: false });
  try {
    await store.whenIndexed();
    return { store, recorded: recordedModelOf(store.tree) };
  } catch (err) {
    await store.close();
    throw err;
  }
}

export async function chatCommand(cli: ParsedCli, print: (s: string) => void): Promise<number> {
  // Every line chat prints itself is a status line; what it quotes may come from the model or the workspace.
  const out = (line: string): void => print(inline(line));
  const prompt = cli.positionals.join(' ').trim();
  const retry = cli.flags.retry === true;
  if (retry && prompt !== '') throw new CliError('--retry sends the failed turn again: give no prompt with it');
  if (prompt === '' && !retry) throw new CliError(`missing prompt: ${CHAT_USAGE}`);
  const endpoint = endpointFlags(cli.flags);
  const workspace = workspaceFlag(cli.flags);
  // Checked before anything is opened or sent: readable, supported, within the limits, and a model that takes images.
  const images = await chatImages(cli.flags, endpoint.model, retry);
  const path = resolve(typeof cli.flags.session === 'string' ? cli.flags.session : join(workspace, '.capsule', 'chat.jsonl'));
  const flagged = limitFlags(cli.flags);
  const approveAll = cli.flags.yes === true;
  const mcpSets = splitMcpSets(cli.flags);
  const settings = settingsFlags(mcpSets.rest);
  const printer = new EventPrinter(print);
  const mode = cli.flags.mode;
  if (mode !== undefined && !isChatMode(mode)) throw new CliError(`--mode must be agent or ask (got '${inline(String(mode))}')`);
  // A CLI killed with SIGKILL could not stop its commands; this run finds the ones its journal names and stops them.
  const leftovers = leftoverReport(await stopLeftovers(join(FileSnapshots.dirFor(path), COMMAND_JOURNAL)));
  if (leftovers !== undefined) out(`[warn] ${leftovers}`);
  const { store, recorded } = await openRecorded(path);
  // A window the user set for this session's model earlier (--window) still wins when this run gives none.
  const userWindow =
    recorded?.model === endpoint.model && recorded.windowSource === 'override' && recorded.contextWindow !== undefined
      ? { contextWindow: recorded.contextWindow }
      : {};
  const override = { ...userWindow, ...flagged };
  // The same model keeps the limits the session recorded for it (flags still win); another one needs the handoff (docs/behaviour.md#triggers).
  const previous = recorded !== undefined && recorded.model !== endpoint.model ? recorded : undefined;
  // The server is asked for the window once per endpoint + model (remembered); a --window given by the user wins and skips it.
  const stated =
    override.contextWindow !== undefined
      ? undefined
      : await serverWindowOnce(new ServerWindowsFile(serverWindowsPath()), endpoint.baseURL, endpoint.apiKey, endpoint.model);
  const recordedLimits =
    recorded !== undefined && previous === undefined ? { contextWindow: recorded.contextWindow, maxOutputTokens: recorded.maxOutputTokens } : undefined;
  const providerLimits =
    stated !== undefined ? { contextWindow: stated.contextWindow, maxOutputTokens: stated.maxOutputTokens ?? recordedLimits?.maxOutputTokens } : recordedLimits;
  const known = providerLimits === undefined ? {} : { provider: providerLimits };
  if (stated !== undefined)
    out(`[model] ${endpoint.model}: window ${stated.contextWindow.toLocaleString('en-US')} tokens, stated by ${SERVER_WINDOW_SOURCE_TEXT[stated.source]}`);
  // A window an earlier run learned from this endpoint's overflow error is where this one starts (flags still win).
  const limitsFile = new LearnedLimitsFile(cliLimitsPath());
  const learned = await limitsFile.get(endpoint.baseURL, endpoint.model);
  const limitsProblem = await limitsFile.problem();
  if (limitsProblem !== undefined) out(`[warn] ${limitsProblem}`);
  const learnedLine = learnedWindowLine(await limitsFile.entry(endpoint.baseURL, endpoint.model), override.contextWindow);
  if (learnedLine !== undefined) out(learnedLine);
  const wanted: ModelConfig = {
    chat: { baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, model: endpoint.model },
    override,
    ...known,
    ...(learned === undefined ? {} : { learned }),
  };
  const writes: Promise<void>[] = [];
  const persist = (e: AgentEvent): void => {
    if (e.type !== 'model_changed' || e.learnedFrom !== 'overflow_error') return;
    const write = limitsFile.record(endpoint.baseURL, e.model, { contextWindow: e.contextWindow, maxOutputTokens: e.maxOutputTokens });
    writes.push(
      write.catch((err: unknown) =>
        out(`[warn] could not remember the learned window in ${limitsFile.path}: ${err instanceof Error ? err.message : String(err)}`),
      ),
    );
  };

  // Servers start with the chat and stop with it (their process groups with them).
  const mcp = await startCliMcp(cli.flags, mcpSets.raw, { workspace, out }).catch(async (err: unknown) => {
    await store?.close();
    throw err;
  });
  let session: ChatFacade;
  try {
    const opened = await AgentSession.open({
      sessionPath: path,
      ...(store === undefined ? {} : { store }),
      create: { cwd: workspace },
      archiveDir: archiveDirFor(path),
      flightLog: flightLogFor(path),
      settings: settings.compaction,
      ...(settings.testCommands === undefined ? {} : { testCommands: settings.testCommands }),
      ...(settings.agent.maxRequestsPerTurn === undefined ? {} : { agentOptions: { maxRequestsPerTurn: settings.agent.maxRequestsPerTurn } }),
      // Opened with the model the session used so far: a switch to a smaller one must be handed off by it.
      model:
        previous === undefined
          ? wanted
          : { chat: { ...endpoint, model: previous.model }, provider: { contextWindow: previous.contextWindow, maxOutputTokens: previous.maxOutputTokens } },
      workspace: {
        roots: [workspace],
        // The user chose this folder on the command line: it is trusted; each action still needs --yes.
        trusted: () => true,
        keepBackgroundProcesses: cli.flags['keep-background'] === true,
        approve: async (req: ApprovalRequest) => {
          if (!approveAll) out(`[approval] refused: ${req.title} (run with --yes to allow tool actions)`);
          return approveAll;
        },
      },
      // Instruction files, skills and the mode (docs/user/instructions.md); --no-instructions reads none.
      ...(cli.flags['no-instructions'] === true ? {} : { instructionFiles: { ...(mode === undefined ? {} : { mode }) } }),
      listener: (e) => {
        persist(e);
        printer.handle(e);
      },
      // Notices meant for the user (a file checkpoints could not keep, and what that means for rewind).
      logger: { log: (_level, message, fields) => (fields?.userNotice === true ? out(`[warn] ${message}`) : undefined) },
      subagents: { settings: settings.subagents, onEvent: subagentPrinter(out, (o) => new EventPrinter(o)) },
      ...(mcp.hub === undefined ? {} : { mcp: { hub: mcp.hub, deferShare: mcp.settings.deferShare, autoAllowReadOnly: mcp.settings.autoAllowReadOnly } }),
    });
    session = new ChatFacade(opened);
  } catch (e) {
    await mcp.hub?.stop();
    await store?.close();
    throw new CliError(e instanceof Error ? e.message : String(e), 1);
  }
  const ctrl = new AbortController();
  const onInterrupt = (): void => ctrl.abort();
  // SIGINT and SIGTERM cancel the turn, which stops its commands, and the session closes cleanly.
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  try {
    if (session.readOnly) throw new CliError(`cannot chat in ${path}: ${session.readOnlyReason ?? 'the session is read-only'}`, 1);
    if (typeof cli.flags.session !== 'string') out(`[session] ${path}`);
    const mcpLine = session.mcpBudget();
    if (mcpLine !== undefined) out(`[mcp] ${mcpLine}`);
    const warning = session.settingsWarning;
    if (warning !== undefined) out(`[warning] ${warning}`);
    if (previous !== undefined) {
      // The barrier's lines and the model change are printed by the listener as they happen.
      const switched = await session.switchModel(wanted, ctrl.signal);
      if (!switched.ok) throw new CliError(switched.error, 1);
    }
    const result = retry
      ? await session.retryTurn({ signal: ctrl.signal })
      : await session.turn({ userText: prompt, signal: ctrl.signal, ...(images.length === 0 ? {} : { images }) });
    // A refused retry ran no turn: its reason came as a notice; it still fails the command.
    return exitCodeOf(result.status);
  } finally {
    await Promise.all(writes);
    await session.close();
    // Opened here, so closed here (the session closes only a store it opened itself).
    await store?.close();
    await mcp.hub?.stop();
    // Removed last: a repeated signal (the terminal's and the launcher's copy of one Ctrl-C) is the same request.
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
  }
}
