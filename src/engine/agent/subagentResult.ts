// What a finished child gives its parent (docs/subagents.md#results): the bounded answer or a clear error, its measured effects, its cost (pure).
import { formatTokens } from '../tokens/figures.js';
import { commandSucceeded, resultTestSummary, toolActionsOf } from '../compaction/toolActions.js';
import { effects as makeEffects, type ChildCommand, type Effects } from '../transcript/effects.js';
import type { Entry } from '../transcript/schema.js';
import type { TurnResult } from './agentEvents.js';
import { lineOf } from '../transcript/branchLine.js';
import type { SessionTree } from '../transcript/tree.js';

/** One child's run as /budget lists it. */
export interface SubagentRun {
  readonly id: string;
  readonly toolCallId: string;
  readonly description: string;
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly compactions: number;
  /** The largest prompt the child sent (its own context, never added to the parent's). */
  readonly largestPrompt: number;
}

/** The runs of every child in `entries` (file order), from their marked entries alone. */
function subagentRuns(entries: readonly Entry[]): SubagentRun[] {
  const runs = new Map<
    string,
    {
      id: string;
      toolCallId: string;
      description: string;
      requests: number;
      promptTokens: number;
      completionTokens: number;
      compactions: number;
      largestPrompt: number;
    }
  >();
  for (const e of entries) {
    const ref = e.subagent;
    if (ref === undefined) continue;
    let r = runs.get(ref.id);
    if (r === undefined) {
      r = {
        id: ref.id,
        toolCallId: ref.toolCallId,
        description: ref.description ?? '',
        requests: 0,
        promptTokens: 0,
        completionTokens: 0,
        compactions: 0,
        largestPrompt: 0,
      };
      runs.set(ref.id, r);
    }
    if (r.description === '' && ref.description !== undefined) r.description = ref.description;
    if (e.type === 'assistant') {
      r.requests += 1;
      r.promptTokens += e.usage?.promptTokens ?? 0;
      r.completionTokens += e.usage?.completionTokens ?? 0;
      r.largestPrompt = Math.max(r.largestPrompt, e.usage?.promptTokens ?? 0);
    } else if (e.type === 'capsule') r.compactions += 1;
  }
  return [...runs.values()];
}

/** The runs whose `task` call is on `branch` (a rewind to before a task leaves its run behind). */
export function activeSubagentRuns(entries: readonly Entry[], branch: readonly Entry[]): SubagentRun[] {
  const calls = new Set(branch.flatMap((e) => (e.type === 'assistant' ? e.toolCalls.map((c) => c.id) : [])));
  return subagentRuns(entries.filter((e) => e.subagent !== undefined && calls.has(e.subagent.toolCallId)));
}

/**
 * The same as activeSubagentRuns(tree.entries(), tree.branch()), reading only the subagents' own lines: a run whose
 * entries name the parent's answer (`anchorId`) is active when that answer is on the branch line; only runs written
 * without it make the branch be read.
 */
export function activeSubagentRunsOf(tree: SessionTree): SubagentRun[] {
  const ids: string[] = [];
  tree.eachLink(0, (id, _parentId, _type, subagent) => {
    if (subagent) ids.push(id);
  });
  const marked: Entry[] = [];
  for (const id of ids) {
    const e = tree.get(id);
    if (e !== undefined) marked.push(e);
  }
  if (marked.length === 0) return [];
  // A run's anchor may be written on its first entry only: any of its entries that names one names it for the run.
  const anchorOfRun = new Map<string, string>();
  for (const e of marked) if (e.subagent?.anchorId !== undefined) anchorOfRun.set(e.subagent.id, e.subagent.anchorId);
  if (marked.some((e) => e.subagent !== undefined && !anchorOfRun.has(e.subagent.id))) return activeSubagentRuns(marked, tree.branch());
  const line = lineOf(tree);
  const onBranch = new Map<string, boolean>();
  const active = (runId: string, toolCallId: string): boolean => {
    let yes = onBranch.get(runId);
    if (yes === undefined) {
      const anchorId = anchorOfRun.get(runId) ?? '';
      const anchor = line.positionOf(anchorId) === undefined ? undefined : tree.get(anchorId);
      yes = anchor?.type === 'assistant' && anchor.toolCalls.some((c) => c.id === toolCallId);
      onBranch.set(runId, yes);
    }
    return yes;
  };
  return subagentRuns(marked.filter((e) => e.subagent !== undefined && active(e.subagent.id, e.subagent.toolCallId)));
}

/** `/budget`'s lines for subagent runs: their own cost, never part of the parent's figures above. */
export function subagentLines(runs: readonly SubagentRun[]): string[] {
  if (runs.length === 0) return [];
  const n = (x: number): string => formatTokens(x);
  return [
    `  Subagents:           ${runs.length} run${runs.length === 1 ? '' : 's'} (their own context; not counted above)`,
    ...runs.map(
      (r) =>
        `    ${r.id} ${r.description === '' ? '' : `"${r.description}" `}· ${r.requests} request${r.requests === 1 ? '' : 's'} · ${n(r.promptTokens)} prompt + ${n(r.completionTokens)} completion tokens · largest prompt ${n(r.largestPrompt)} · ${r.compactions} compaction${r.compactions === 1 ? '' : 's'}`,
    ),
  ];
}

/** The commands a child ran, as the ledger records runs: the command, its exit code and status, a test runner's summary. */
function childCommands(entries: readonly Entry[]): ChildCommand[] {
  const out: ChildCommand[] = [];
  for (const a of toolActionsOf(entries)) {
    if (a.kind !== 'command' || a.command === undefined) continue;
    const e = a.result?.effects;
    const summary = a.result === undefined ? undefined : resultTestSummary(a.result);
    out.push({
      callId: a.callId,
      command: a.command.slice(0, 4000),
      exitCode: a.exitCode,
      ok: commandSucceeded(a),
      ...(e?.timedOut === true ? { timedOut: true } : {}),
      ...(e?.denied === true ? { denied: true } : {}),
      ...(summary === undefined ? {} : { summary: summary.slice(0, 500) }),
    });
  }
  return out.slice(-1000);
}

/** The files and commands of a child's tool results, as one effects record on the parent's task result (the ledger reads it). */
export function childEffects(entries: readonly Entry[]): Effects | undefined {
  const created = new Set<string>();
  const modified = new Set<string>();
  const deleted = new Set<string>();
  const read = new Set<string>();
  const renamed: { from: string; to: string }[] = [];
  let any = false;
  for (const e of entries) {
    if (e.type !== 'tool_result' || e.effects === undefined || e.effects.source !== 'measured') continue;
    any = true;
    for (const p of e.effects.created) created.add(p);
    for (const p of e.effects.modified) if (!created.has(p)) modified.add(p);
    for (const p of e.effects.deleted) {
      deleted.add(p);
      created.delete(p);
      modified.delete(p);
    }
    for (const p of e.effects.read) read.add(p);
    renamed.push(...e.effects.renamed);
  }
  const commands = childCommands(entries);
  if (!any && commands.length === 0) return undefined;
  return makeEffects({
    source: 'measured',
    created: [...created],
    modified: [...modified],
    deleted: [...deleted],
    read: [...read],
    renamed,
    ...(commands.length === 0 ? {} : { commands }),
  });
}

/** The commands a child ran, with their exit statuses, one line each (the ledger of the next capsule gets them through this text). */
export function childCommandLines(entries: readonly Entry[]): string[] {
  const commands = new Map<string, string>();
  for (const e of entries) {
    if (e.type !== 'assistant') continue;
    for (const c of e.toolCalls) {
      if (c.name !== 'run_command') continue;
      try {
        const args = JSON.parse(c.arguments) as { command?: unknown };
        if (typeof args.command === 'string') commands.set(c.id, args.command);
      } catch {
        // A call whose arguments did not parse did not run.
      }
    }
  }
  const lines: string[] = [];
  for (const e of entries) {
    if (e.type !== 'tool_result') continue;
    const command = commands.get(e.toolCallId);
    if (command === undefined) continue;
    const exit = e.effects?.exitCode;
    lines.push(`- \`${command.slice(0, 300)}\` → ${exit === undefined ? (e.isError ? 'failed' : 'ok') : exit === null ? 'no exit code' : `exit ${exit}`}`);
  }
  return lines;
}

/** The parent's tool result text for a child's end: its answer, or an error that says why it stopped. */
export function childOutcome(description: string, id: string, result: TurnResult, maxRequests?: number): { readonly ok: boolean; readonly text: string } {
  if (result.status === 'completed' && result.answer !== undefined && result.answer.trim() !== '') return { ok: true, text: result.answer };
  const why =
    maxRequests !== undefined && result.status === 'failed' && result.requests >= maxRequests
      ? `it reached its limit of ${maxRequests} model requests (capsule.subagents.maxRequests)`
      : result.stopReason === 'doom_loop'
        ? 'it repeated the same tool call and was stopped (loop)'
        : result.status === 'cancelled'
          ? 'it was cancelled'
          : result.status === 'completed'
            ? 'it ended without an answer'
            : (result.error ?? 'it failed');
  return {
    ok: false,
    text: `Subagent ${id} ("${description}") stopped without an answer: ${why}. Nothing it found is lost from the session, but you did not get a result: do the work yourself or delegate a narrower task.`,
  };
}

/** Splits `text` into pages of at most `size` characters. */
export function answerPages(text: string, size: number): string[] {
  const pages: string[] = [];
  for (let i = 0; i < text.length; i += size) pages.push(text.slice(i, i + size));
  return pages.length === 0 ? [''] : pages;
}
