// `capsule compact <session.jsonl>`: runs the compaction engine on a session file and prints the result line of docs/behaviour.md#barrier.
import type { PreflightResult } from '../../engine/compaction/barrier.js';
import { type CompactionOutcome, reclaimedPercent } from '../../engine/compaction/outcome.js';
import { TRIGGERS, TriggerSchema, type Trigger } from '../../engine/transcript/schema.js';
import { sidecarPaths } from '../../node/agentSession.js';
import { OpenAIChatModel } from '../../node/providers/openaiModel.js';
import { CliError, type Flags, type ParsedCli } from '../args.js';
import { apiKeyFromFlags } from '../keyHandover.js';
import { chatToolSchemas, CLI_PROVIDER, cliSettings } from '../session.js';
import { openOffline } from '../offline.js';
import { settingsFlags } from '../settingsFlags.js';
import { COMPACT_USAGE } from '../usage.js';

export { COMPACT_USAGE };

/** Exit status of a run the user interrupted (128 + SIGINT), by shell convention. */
const EXIT_CANCELLED = 130;

/** Evidence archive of a session compacted from the CLI: `<session>.archive/` next to the file. */
export function archiveDirFor(sessionPath: string): string {
  return sidecarPaths(sessionPath).archiveDir;
}

/** Flight records of CLI compactions: `<session>.flight.jsonl` next to the file. */
export function flightLogFor(sessionPath: string): string {
  return sidecarPaths(sessionPath).flightLog;
}

function triggerFlag(flags: Flags): Trigger | undefined {
  const raw = flags.trigger;
  if (raw === undefined) return undefined;
  const parsed = TriggerSchema.safeParse(typeof raw === 'string' ? raw.trim() : raw);
  if (!parsed.success) throw new CliError(`--trigger must be one of ${TRIGGERS.join(', ')} (got '${String(raw)}')`);
  return parsed.data;
}

/** `--focus "text"`: what the capsule should concentrate on, as `/compact <focus>` does in the chat. */
function focusFlag(flags: Flags): string | undefined {
  const raw = flags.focus;
  if (raw === undefined) return undefined;
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === '') throw new CliError('--focus needs some text, e.g. --focus "the parser bug"');
  return text;
}

interface Summarizer {
  readonly baseURL?: string;
  readonly apiKey: string;
}

/** Either the deterministic fallback or an OpenAI-compatible endpoint; never a silent default that calls the network. */
function summarizerFlags(flags: Flags): Summarizer {
  const fallback = flags.fallback === true;
  const baseURL = typeof flags['base-url'] === 'string' ? flags['base-url'].trim() : undefined;
  if (fallback && baseURL !== undefined) throw new CliError('--fallback and --base-url exclude each other');
  if (!fallback && baseURL === undefined) throw new CliError(`choose --fallback (no model) or --base-url URL --model M: ${COMPACT_USAGE}`);
  if (fallback) return { apiKey: '' };
  if (!/^https?:\/\//.test(baseURL ?? '')) throw new CliError(`--base-url must be an http:// or https:// URL (got '${baseURL ?? ''}')`);
  if (typeof flags.model !== 'string' || flags.model.trim() === '') throw new CliError('--base-url needs --model M');
  return { ...(baseURL === undefined ? {} : { baseURL }), apiKey: apiKeyFromFlags(flags) };
}

/** An outcome without the capsule text (which `capsule show` prints). */
function outcomeJson(o: CompactionOutcome): Record<string, unknown> {
  const after = o.outcome === 'completed' || o.outcome === 'skipped' ? o.tokensAfter : undefined;
  return {
    outcome: o.outcome,
    operationId: o.operationId,
    trigger: o.trigger,
    level: o.level,
    tokensBefore: o.tokensBefore,
    tokensAfter: after ?? null,
    reclaimedPct: after === undefined ? null : reclaimedPercent(o.tokensBefore, after),
    checkpointId: o.checkpointId ?? null,
    capsuleId: o.outcome === 'completed' ? o.capsule.id : null,
    quality: o.outcome === 'completed' ? o.quality : null,
    fallbackReason: o.outcome === 'completed' ? (o.fallbackReason ?? null) : null,
    reason: o.outcome === 'completed' ? null : o.reason,
    attempts: o.attempts,
    durationMs: o.durationMs,
  };
}

function exitCode(r: PreflightResult): number {
  if (r.outcomes.some((o) => o.outcome === 'cancelled')) return EXIT_CANCELLED;
  return r.mayProceed ? 0 : 1;
}

export async function compactCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const path = cli.positionals[0];
  if (!path) throw new CliError(`missing session file: ${COMPACT_USAGE}`);
  const trigger = triggerFlag(cli.flags);
  const focus = focusFlag(cli.flags);
  const upTo = typeof cli.flags['up-to'] === 'string' ? cli.flags['up-to'].trim() : undefined;
  if (upTo !== undefined && !/^[A-Za-z0-9_-]{1,200}$/.test(upTo))
    throw new CliError(`--up-to needs the id of a user message (an entry id such as e_…): ${COMPACT_USAGE}`);
  if (upTo !== undefined && trigger !== undefined)
    throw new CliError('--up-to and --trigger exclude each other: compacting up to a message is a user compaction');
  const summarizer = summarizerFlags(cli.flags);
  const settings = settingsFlags(cli.flags);
  const raw = settings.compaction;
  const session = await openOffline(
    path,
    (info) => ({
      model: info,
      provider: CLI_PROVIDER,
      resolved: cliSettings(info, raw),
      // The schemas chat sends: the measurement counts them and the summary request repeats them.
      tools: chatToolSchemas(info, cliSettings(info, raw)),
      ...(settings.testCommands === undefined ? {} : { testCommands: settings.testCommands }),
      ...(summarizer.baseURL === undefined
        ? {}
        : { summarizer: new OpenAIChatModel({ baseURL: summarizer.baseURL, apiKey: summarizer.apiKey, model: info.model }) }),
    }),
    cli.flags,
  );
  try {
    if (session.readOnly) throw new CliError(`cannot compact ${path}: ${session.readOnlyReason ?? 'the session is read-only'}`, 1);
    const modelInfo = session.basis().model;
    const resolved = session.basis().resolved;
    const ctrl = new AbortController();
    const onInterrupt = (): void => ctrl.abort();
    process.on('SIGINT', onInterrupt);
    let result: PreflightResult;
    try {
      // Without --trigger this is the user's `/compact`: no ROI gate, and hard_limit when the session is over the limit.
      const opts = { signal: ctrl.signal, ...(focus === undefined ? {} : { focus }) };
      result = upTo !== undefined ? await session.compactUpTo(upTo, opts) : await session.compact({ ...opts, ...(trigger === undefined ? {} : { trigger }) });
    } finally {
      process.off('SIGINT', onInterrupt);
    }
    if (cli.flags.json === true) {
      out(
        JSON.stringify(
          {
            session: path,
            model: modelInfo.model,
            limits: { contextWindow: result.limits.contextWindow, hardLimit: result.limits.hardLimit, softLimit: result.limits.softLimit },
            tokens: result.tokens,
            fits: result.tokens <= result.limits.hardLimit,
            outcomes: result.outcomes.map(outcomeJson),
            lines: result.lines,
            error: result.error ?? null,
            warning: resolved.warning ?? null,
          },
          null,
          2,
        ),
      );
      return exitCode(result);
    }
    if (resolved.warning) out(`Warning: ${resolved.warning}`);
    for (const line of result.lines) out(line);
    if (result.error !== undefined) throw new CliError(result.error, exitCode(result));
    return exitCode(result);
  } finally {
    await session.close();
  }
}
