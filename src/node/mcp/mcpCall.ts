// One MCP tool call as the agent sees it: approval like run_command, files measured on disk around it, the result converted, bounded and its original archived.
import { randomBytes } from 'node:crypto';
import type { EvidenceArchive, ToolResult } from '../../engine/ports.js';
import { effects, type Effects } from '../../engine/transcript/effects.js';
import type { FileCapture } from '../snapshots/fileSnapshots.js';
import { checkpointProbe, startCommandProbe } from '../tools/commandEffects.js';
import { HeadTailBuffer } from '../tools/outputCap.js';
import { decisionOf, feedbackSentence, type ApprovalFn } from '../tools/types.js';
import type { CatalogTool, McpHub } from './hub.js';
import { convertResult } from './results.js';

export interface CallContext {
  readonly hub: McpHub;
  readonly roots: readonly string[];
  readonly approve: ApprovalFn;
  readonly trusted: () => boolean;
  /** Tools the model may call without asking because they declare readOnlyHint (a setting, off by default). */
  readonly autoAllowReadOnly: boolean;
  /** Tools the user allowed for the rest of the chat ("always for this tool"). */
  readonly allowed: Set<string>;
  /** Bytes of a result kept at its head and tail; the middle is dropped with a note naming the archived original. */
  readonly headBytes: number;
  readonly tailBytes: number;
  readonly archive?: EvidenceArchive;
  readonly capture?: FileCapture;
  readonly now: () => number;
  /** The model in use takes image parts (asked at each call: the model may be switched during the chat). */
  readonly vision?: () => boolean;
}

/** Characters of the arguments shown on the approval card. */
const MAX_DETAIL_CHARS = 4000;

function fail(content: string, e: Effects): ToolResult {
  return { isError: true, content, effects: e };
}

/** Runs `run` with the workspace measured around it when the tool may change files. */
async function measured<T>(
  ctx: CallContext,
  t: CatalogTool,
  run: () => Promise<T>,
): Promise<{ value: T; files?: Awaited<ReturnType<Awaited<ReturnType<typeof startCommandProbe>>['finish']>> }> {
  if (t.readOnly || ctx.roots.length === 0) return { value: await run() };
  const root = ctx.roots[0] ?? '';
  // With checkpoints, the checkpoint's scans are the effect measurement too (as for run_command): one before, one after.
  const probe = await (ctx.capture === undefined ? startCommandProbe(ctx.roots, root) : checkpointProbe(ctx.capture, ctx.roots)).catch(() => undefined);
  const value = await run();
  const files = await probe?.finish().catch(() => undefined);
  return files === undefined ? { value } : { value, files };
}

/** Keeps head and tail of a long text (by bytes, the window's result cap) and says where the original is. */
function bounded(ctx: CallContext, text: string, archivedAs: string | undefined): string {
  const buf = new HeadTailBuffer(ctx.headBytes, ctx.tailBytes);
  buf.push(Buffer.from(text, 'utf8'));
  if (buf.dropped === 0) return text;
  const where =
    archivedAs === undefined
      ? 'The original could not be archived.'
      : `The exact original is archived: page through it with read_compaction_evidence {"result": "${archivedAs}", "page": 1} (add "query" to search it).`;
  return `${buf.text()}\n[The result was ${buf.bytes} bytes; it was shortened to fit the context window. ${where}]`;
}

async function archiveOriginal(
  ctx: CallContext,
  t: CatalogTool,
  text: string,
  binaries: readonly { kind: string; mimeType: string; data: string }[],
): Promise<string | undefined> {
  if (ctx.archive === undefined) return undefined;
  const id = `res_${randomBytes(8).toString('hex')}`;
  const content = [text, ...binaries.map((b) => `[${b.kind} ${b.mimeType}] data:${b.mimeType};base64,${b.data}`)].join('\n');
  try {
    await ctx.archive.save({
      operationId: id,
      checkpointId: `mcp ${t.name}`,
      createdAt: new Date(ctx.now()).toISOString(),
      excluded: [{ role: 'tool', toolCallId: id, content }],
      summarizerInput: [],
    });
    return id;
  } catch {
    return undefined;
  }
}

export async function callMcpTool(ctx: CallContext, t: CatalogTool, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<ToolResult> {
  const started = ctx.now();
  const took = (): number => Math.max(0, ctx.now() - started);
  if (!ctx.trusted()) return fail(`${t.name} was not run: MCP tools need a trusted workspace.`, effects({ source: 'measured', denied: true, durationMs: 0 }));
  if (!(ctx.autoAllowReadOnly && t.readOnly) && !ctx.allowed.has(t.name)) {
    const detail = JSON.stringify(args, null, 2);
    const decision = decisionOf(
      await ctx.approve(
        {
          kind: 'mcp',
          title: `Call ${t.tool} on MCP server ${t.server}`,
          detail: detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS)}…` : detail,
          server: t.server,
          tool: t.tool,
          name: t.name,
        },
        signal,
      ),
    );
    if (!decision.approved)
      return fail(`The user denied ${t.name}; it was not run.${feedbackSentence(decision)}`, effects({ source: 'measured', denied: true, durationMs: took() }));
    if (decision.always === true) ctx.allowed.add(t.name);
  }
  const conn = ctx.hub.get(t.server);
  if (conn === undefined)
    return fail(`${t.name}: the MCP server "${t.server}" is not configured any more.`, effects({ source: 'measured', failed: true, durationMs: took() }));
  let outcome: Awaited<ReturnType<typeof measured<Awaited<ReturnType<typeof conn.call>>>>>;
  try {
    outcome = await measured(ctx, t, () => conn.call(t.tool, args, signal));
  } catch (err) {
    const cancelled = signal.aborted;
    const why = err instanceof Error ? err.message : String(err);
    return fail(
      cancelled ? `Cancelled: ${t.name} was stopped (the server was told with notifications/cancelled).` : `${t.name} failed: ${why}`,
      effects({ source: 'measured', failed: true, durationMs: took(), ...(cancelled ? { cancelled: true } : {}) }),
    );
  }
  const vision = { vision: ctx.vision?.() === true };
  const converted = convertResult(outcome.value, undefined, vision);
  const needsArchive = converted.binaries.length > 0 || Buffer.byteLength(converted.text, 'utf8') > ctx.headBytes + ctx.tailBytes;
  const archivedAs = needsArchive ? await archiveOriginal(ctx, t, converted.text, converted.binaries) : undefined;
  // Placeholders name the archive id once it exists.
  const text = archivedAs === undefined ? converted.text : convertResult(outcome.value, archivedAs, vision).text;
  const files = outcome.files;
  return {
    isError: converted.isError,
    content: bounded(ctx, text, archivedAs),
    ...(converted.images.length === 0 ? {} : { images: converted.images }),
    effects: effects({
      source: 'measured',
      failed: converted.isError,
      durationMs: took(),
      ...(files === undefined
        ? t.readOnly
          ? { unknown: 'not measured: the tool declares itself read-only' }
          : {}
        : {
            created: [...files.created].sort(),
            modified: [...files.modified].sort(),
            deleted: [...files.deleted].sort(),
            renamed: files.renamed,
            ...(files.unknown === undefined ? {} : { unknown: files.unknown }),
          }),
    }),
  };
}
