// Session verification for `capsule verify`: load problems plus structural checks of every branch of the tree.
import type { LoadProblem, LoadProblemKind } from '../ports.js';
import type { CapsuleEntry, Entry } from './schema.js';
import type { SessionTree } from './tree.js';

type VerifyIssueKind = LoadProblemKind | 'split_tool_pair' | 'orphan_tool_result' | 'interrupted_tool_call' | 'dangling_first_kept' | 'capsule_pin_missing';

export interface VerifyIssue {
  readonly kind: VerifyIssueKind;
  readonly severity: 'error' | 'warning';
  readonly line?: number;
  readonly entryId?: string;
  readonly message: string;
}

export interface VerifyReport {
  /** No error-severity issues. */
  readonly ok: boolean;
  readonly issues: readonly VerifyIssue[];
  readonly entries: number;
  /** Leaf count of the tree. */
  readonly branches: number;
  readonly activeBranchLength: number;
}

/**
 * Combines load problems with structural checks of the branch of every tree leaf and of the active
 * leaf (which after a rewind may sit in the middle of a longer branch). Issues on shared prefixes are
 * reported once.
 */
export function verifySession(tree: SessionTree, loadProblems: readonly LoadProblem[]): VerifyReport {
  const issues: VerifyIssue[] = [];
  const seen = new Set<string>();
  const report = (issue: VerifyIssue): void => {
    const key = `${issue.kind}\u0000${issue.line ?? ''}\u0000${issue.entryId ?? ''}\u0000${issue.severity}\u0000${issue.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    issues.push(issue);
  };

  // Every load problem is an error, torn_tail included: the file was damaged even if the loader recovered it.
  for (const p of loadProblems)
    report(
      p.line === undefined ? { kind: p.kind, severity: 'error', message: p.message } : { kind: p.kind, severity: 'error', line: p.line, message: p.message },
    );
  // The loader normally forwards the tree's own problems; add any it did not, so a tree built by hand is checked too.
  for (const p of tree.problems) {
    const forwarded = loadProblems.some((l) => l.kind === p.kind && l.message.includes(p.entryId));
    if (!forwarded) report({ kind: p.kind, severity: 'error', entryId: p.entryId, message: p.message });
  }

  const leaves = treeLeaves(tree);
  const active = tree.leafId;
  const tips = active !== null && !leaves.includes(active) ? [...leaves, active] : leaves;
  for (const tip of tips) checkBranch(tree.branch(tip), tip === active, report);

  return {
    ok: !issues.some((i) => i.severity === 'error'),
    issues,
    entries: tree.size,
    branches: leaves.length,
    activeBranchLength: tree.branch().length,
  };
}

/** Conversation entries that no other conversation entry has as parent, in file order. */
export function treeLeaves(tree: SessionTree): string[] {
  const parents = new Set<string>();
  const nodes = tree.entries().filter((e) => e.type !== 'leaf');
  for (const e of nodes) if (e.parentId !== null) parents.add(e.parentId);
  return nodes.filter((e) => !parents.has(e.id)).map((e) => e.id);
}

type Report = (issue: VerifyIssue) => void;

/** The tool calls of the latest assistant message that are still waiting for their results. */
interface OpenGroup {
  readonly assistantId: string;
  readonly pending: Set<string>;
  readonly answered: Set<string>;
}

function checkBranch(branch: readonly Entry[], isActive: boolean, report: Report): void {
  /** Where each tool call id was made on this branch. */
  const callAt = new Map<string, number>();
  let group: OpenGroup | undefined;

  const closeGroup = (by: Entry): void => {
    if (group && group.pending.size > 0) {
      report({
        kind: 'split_tool_pair',
        severity: 'error',
        entryId: group.assistantId,
        message: `assistant ${group.assistantId} has no result for tool call(s) ${[...group.pending].join(', ')} before ${by.type} ${by.id}`,
      });
    }
    group = undefined;
  };

  branch.forEach((e, index) => {
    switch (e.type) {
      case 'user':
        closeGroup(e);
        break;
      case 'assistant':
        closeGroup(e);
        for (const c of e.toolCalls) callAt.set(c.id, index);
        if (e.toolCalls.length > 0) group = { assistantId: e.id, pending: new Set(e.toolCalls.map((c) => c.id)), answered: new Set() };
        break;
      case 'tool_result':
        checkToolResult(e.id, e.toolCallId, group, callAt, report);
        if (e.interrupted === true) {
          report({
            kind: 'interrupted_tool_call',
            severity: 'warning',
            entryId: e.id,
            message: `tool call ${e.toolCallId} (${e.toolName}) was interrupted before its result was recorded; repaired with an "interrupted" result`,
          });
        }
        break;
      case 'capsule':
        checkCapsule(e, index, branch, callAt, report);
        break;
      case 'system_update':
      case 'checkpoint':
      case 'model_change':
      case 'leaf':
      case 'turn_end':
      case 'compaction_undo':
        break;
    }
  });

  if (group && group.pending.size > 0) {
    const ids = [...group.pending].join(', ');
    report(
      isActive
        ? {
            kind: 'split_tool_pair',
            severity: 'warning',
            entryId: group.assistantId,
            message: `assistant ${group.assistantId} is waiting for tool result(s) ${ids} (a turn in progress)`,
          }
        : {
            kind: 'split_tool_pair',
            severity: 'error',
            entryId: group.assistantId,
            message: `branch ends after assistant ${group.assistantId} without result(s) for tool call(s) ${ids}`,
          },
    );
  }
}

function checkToolResult(entryId: string, callId: string, group: OpenGroup | undefined, callAt: ReadonlyMap<string, number>, report: Report): void {
  if (group && group.pending.has(callId)) {
    group.pending.delete(callId);
    group.answered.add(callId);
    return;
  }
  if (group && group.answered.has(callId)) {
    // Harmless to the reader but sent twice to the model; a retried tool write after a crash can cause it.
    report({ kind: 'orphan_tool_result', severity: 'warning', entryId, message: `tool_result ${entryId} is a second result for tool call ${callId}` });
    return;
  }
  // The model only accepts results right after the assistant message that made the call.
  const message = callAt.has(callId)
    ? `tool_result ${entryId} answers tool call ${callId} of an earlier assistant message, not the latest one`
    : `tool_result ${entryId} answers tool call ${callId}, which no earlier assistant message on its branch made`;
  report({ kind: 'orphan_tool_result', severity: 'error', entryId, message });
}

function checkCapsule(capsule: CapsuleEntry, index: number, branch: readonly Entry[], callAt: ReadonlyMap<string, number>, report: Report): void {
  const before = new Map<string, number>();
  for (let i = 0; i < index; i++) {
    const e = branch[i];
    if (e) before.set(e.id, i);
  }
  let keptFrom = index;
  if (capsule.firstKeptEntryId !== null) {
    const k = before.get(capsule.firstKeptEntryId);
    if (k === undefined) {
      report({
        kind: 'dangling_first_kept',
        severity: 'error',
        entryId: capsule.id,
        message: `capsule ${capsule.id} keeps from ${capsule.firstKeptEntryId}, which is not on its branch before it; the retained tail would be lost`,
      });
    } else keptFrom = k;
  }
  const missing = capsule.pinnedEntryIds.filter((id) => !before.has(id));
  if (missing.length > 0) {
    report({
      kind: 'capsule_pin_missing',
      severity: 'error',
      entryId: capsule.id,
      message: `capsule ${capsule.id} pins ${missing.join(', ')}, not on its branch before it`,
    });
  }
  // docs/behaviour.md#cut: the cut must not separate a tool call (summarized) from its result (kept verbatim). A result pairs with the
  // nearest earlier call of its id: some servers reuse ids such as "call_0" in every turn, and a later call in the
  // kept tail is the one a result after it answers.
  const pinned = new Set(capsule.pinnedEntryIds);
  const keptCalls = new Set<string>();
  for (let i = keptFrom; i < branch.length; i++) {
    const e = branch[i];
    if (!e || (e.type === 'capsule' && i > index)) break;
    if (e.type === 'assistant') for (const c of e.toolCalls) keptCalls.add(c.id);
    if (e.type !== 'tool_result' || keptCalls.has(e.toolCallId)) continue;
    const at = callAt.get(e.toolCallId);
    const caller = at === undefined ? undefined : branch[at];
    if (at !== undefined && at < keptFrom && caller && !pinned.has(caller.id)) {
      report({
        kind: 'split_tool_pair',
        severity: 'error',
        entryId: capsule.id,
        message: `capsule ${capsule.id} cuts between assistant ${caller.id} (summarized) and its tool_result ${e.id} (kept)`,
      });
    }
  }
}
