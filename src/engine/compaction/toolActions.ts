// Reads what each tool call did (files read or modified, commands, skills) from its arguments, its result and its recorded effects.
import { resultStatus, type ResultStatus } from '../effects/resultStatus.js';
import { patchEffects } from '../effects/patchEffects.js';
import { shellEffects } from '../effects/shellEffects.js';
import { isTestCommand, summaryFailed, testSummary } from '../effects/testRunners.js';
import { touchesFiles, type Effects, type Rename } from '../transcript/effects.js';
import type { Entry, ToolCall, ToolResultEntry } from '../transcript/schema.js';

export type ToolActionKind = 'read' | 'modify' | 'command' | 'list' | 'search' | 'skill' | 'other';

export interface ToolAction {
  readonly callId: string;
  readonly name: string;
  readonly kind: ToolActionKind;
  /** Workspace paths the call names (for list/search: the folder searched, if any). */
  readonly paths: readonly string[];
  readonly command?: string;
  readonly skill?: string;
  /** Search query or pattern, when the call has one. */
  readonly query?: string;
  /** The call's result, when it is among the given entries. */
  readonly result?: ToolResultEntry;
  /** Exit code recorded in the effects or found in the result text, if any. */
  readonly exitCode: number | null;
  /** Directory the command ran in, when the call names one (`cwd`, `workdir`). */
  readonly workdir?: string;
  /** The patch text of an apply-patch style call. */
  readonly patch?: string;
  /** An editor tool's `command` argument (`view`, `create`, `str_replace`…). */
  readonly subcommand?: string;
}

/** What a call did to files, from its recorded effects or (marked inferred) from its arguments and command text. */
export interface ActionFiles {
  readonly created: readonly string[];
  readonly modified: readonly string[];
  readonly deleted: readonly string[];
  readonly renamed: readonly Rename[];
  readonly read: readonly string[];
  /** True when read from the command text rather than measured. */
  readonly inferred: boolean;
  /** Why a measured record could not tell. */
  readonly unknown?: string;
}

/** Parses a tool's JSON argument string; models sometimes produce non-objects or broken JSON. */
function parseToolArgs(json: string): Readonly<Record<string, unknown>> | undefined {
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// Order matters: "search_replace" edits, "file_search" searches, "read_file" reads.
const KIND_BY_NAME: readonly (readonly [RegExp, ToolActionKind])[] = [
  [/(^|_)(run|exec|execute|bash|shell|sh|terminal|command|cmd)($|_)/, 'command'],
  [/skill/, 'skill'],
  [/write|edit|creat|replace|patch|delete|remov|rename|move|insert|append/, 'modify'],
  [/read|view|open|cat($|_)/, 'read'],
  [/list|^ls$|_dir|tree/, 'list'],
  [/search|grep|find|glob/, 'search'],
];

export function toolKind(name: string): ToolActionKind {
  const n = name.toLowerCase();
  for (const [re, kind] of KIND_BY_NAME) if (re.test(n)) return kind;
  return 'other';
}

const PATH_KEYS = ['path', 'file_path', 'filePath', 'file', 'filename', 'target_file', 'notebook_path', 'source', 'destination', 'new_path', 'old_path'];
const PATH_LIST_KEYS = ['paths', 'files', 'file_paths'];
const PATCH_KEYS = ['patch', 'diff', 'input'];

/** Normalizes a path the way the ledger stores it: forward slashes, no leading "./". */
function normalizePath(p: string): string {
  return p
    .trim()
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '');
}

/** Files named by an apply-patch envelope (`*** Update File: x`) or a unified diff (`+++ b/x`). */
export function pathsInPatch(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const envelope = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/.exec(line) ?? /^\*\*\* Move to: (.+)$/.exec(line);
    // Unified diffs prefix paths with a/ and b/; the apply-patch envelope does not.
    const diff = /^(?:\+\+\+|---) (.+?)(?:\t.*)?$/
      .exec(line)?.[1]
      ?.trim()
      .replace(/^[ab]\//, '');
    const p = envelope?.[1]?.trim() ?? diff;
    if (p !== undefined && p !== '/dev/null' && p !== '') out.push(normalizePath(p));
  }
  return out;
}

function pathsOf(args: Readonly<Record<string, unknown>> | undefined, raw: string, kind: ToolActionKind): string[] {
  const out: string[] = [];
  const add = (v: unknown): void => {
    if (typeof v === 'string' && v.trim() !== '') out.push(normalizePath(v));
  };
  if (args) {
    for (const k of PATH_KEYS) add(args[k]);
    for (const k of PATH_LIST_KEYS) {
      const v = args[k];
      if (Array.isArray(v)) v.forEach(add);
    }
    const edits = args['edits'];
    if (Array.isArray(edits)) {
      for (const e of edits) if (typeof e === 'object' && e !== null) add((e as Record<string, unknown>)['path']);
    }
    if (kind === 'modify') {
      for (const k of PATCH_KEYS) {
        const v = args[k];
        if (typeof v === 'string') out.push(...pathsInPatch(v));
      }
    }
  } else if (kind === 'modify') {
    out.push(...pathsInPatch(raw)); // some apply_patch tools take the raw patch as their "arguments"
  }
  return [...new Set(out)];
}

/** `["bash", "-lc", "npm test"]` (Codex's shell argument) is the command `npm test`; other argv lists are joined with quoting. */
function argvCommand(v: readonly string[]): string {
  const [sh, flag, script] = v;
  if (v.length === 3 && sh !== undefined && /(^|\/)(ba|z|da)?sh$/.test(sh) && flag !== undefined && /^-[a-z]*c$/.test(flag) && script !== undefined)
    return script;
  return v.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function stringArg(args: Readonly<Record<string, unknown>> | undefined, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = args?.[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return argvCommand(v);
  }
  return undefined;
}

/** Editor tools with a `command` argument (SWE-agent's str_replace_editor): `view` reads, the rest write. */
const EDITOR_READS = new Set(['view']);
const EDITOR_WRITES = new Set(['create', 'str_replace', 'insert', 'undo_edit', 'write', 'append']);

function kindOf(name: string, args: Readonly<Record<string, unknown>> | undefined): ToolActionKind {
  const kind = toolKind(name);
  const sub = args?.['command'];
  if ((kind === 'modify' || kind === 'read') && typeof sub === 'string') {
    if (EDITOR_READS.has(sub)) return 'read';
    if (EDITOR_WRITES.has(sub)) return 'modify';
  }
  return kind;
}

/** The exit code a result states in one of the formats agents write (see resultStatus.ts); null when none. */
export { exitCodeOf as exitCodeIn } from '../effects/resultStatus.js';

/** A call's own part of its action (everything but the result), read once per call: arguments are parsed only once. */
type CallPart = Omit<ToolAction, 'result' | 'exitCode'>;

// Entries are immutable, so what is read from them is memoized on the objects themselves (a compaction reads the
// same calls for the ledger, the fallback capsule and the retention report; later compactions re-read the kept tail).
const callParts = new WeakMap<ToolCall, CallPart>();
const withResult = new WeakMap<ToolResultEntry, { readonly call: ToolCall; readonly action: ToolAction }>();
const withoutResult = new WeakMap<ToolCall, ToolAction>();
const statuses = new WeakMap<ToolResultEntry, ResultStatus>();
const summaries = new WeakMap<ToolResultEntry, { readonly summary: string | undefined }>();
const succeeded = new WeakMap<ToolAction, boolean | null>();
const files = new WeakMap<ToolAction, ActionFiles>();

function callPart(call: ToolCall): CallPart {
  const hit = callParts.get(call);
  if (hit) return hit;
  const args = parseToolArgs(call.arguments);
  const kind = kindOf(call.name, args);
  const command = kind === 'command' ? stringArg(args, ['command', 'cmd', 'script', 'commandLine']) : undefined;
  const skill = kind === 'skill' ? stringArg(args, ['name', 'skill', 'skill_name', 'skillName', 'id']) : undefined;
  const query = kind === 'search' ? stringArg(args, ['query', 'pattern', 'regex', 'text', 'glob']) : undefined;
  const workdir = kind === 'command' ? stringArg(args, ['cwd', 'workdir', 'working_directory']) : undefined;
  const patch = kind !== 'modify' ? undefined : args === undefined ? call.arguments : stringArg(args, PATCH_KEYS);
  const part: CallPart = {
    callId: call.id,
    name: call.name,
    kind,
    paths: pathsOf(args, call.arguments, kind),
    ...(command !== undefined ? { command } : {}),
    ...(skill !== undefined ? { skill } : {}),
    ...(query !== undefined ? { query } : {}),
    ...(workdir !== undefined ? { workdir } : {}),
    ...(patch !== undefined ? { patch } : {}),
    ...(typeof args?.['command'] === 'string' && kind !== 'command' ? { subcommand: args['command'] } : {}),
  };
  callParts.set(call, part);
  return part;
}

/** The status a result's text states (see resultStatus.ts), read once per result entry. */
function statusOf(result: ToolResultEntry): ResultStatus {
  const hit = statuses.get(result);
  if (hit) return hit;
  const s = resultStatus(result.content, result.isError);
  statuses.set(result, s);
  return s;
}

/** The test runner's summary line in a result (see testRunners.ts), read once per result entry. */
export function resultTestSummary(result: ToolResultEntry): string | undefined {
  const hit = summaries.get(result);
  if (hit) return hit.summary;
  const summary = testSummary(result.content);
  summaries.set(result, { summary });
  return summary;
}

function actionOf(call: ToolCall, result: ToolResultEntry | undefined): ToolAction {
  if (result === undefined) {
    const hit = withoutResult.get(call);
    if (hit) return hit;
    const action: ToolAction = { ...callPart(call), exitCode: null };
    withoutResult.set(call, action);
    return action;
  }
  const hit = withResult.get(result);
  if (hit?.call === call) return hit.action;
  const part = callPart(call);
  const exitCode = part.kind === 'command' ? (result.effects?.exitCode !== undefined ? result.effects.exitCode : statusOf(result).exitCode) : null;
  // Same key order as a freshly built action always had: call part, result, then the exit code.
  const { callId, name, kind, paths, command, skill, query, workdir, patch, subcommand } = part;
  const action: ToolAction = {
    callId,
    name,
    kind,
    paths,
    ...(command !== undefined ? { command } : {}),
    ...(skill !== undefined ? { skill } : {}),
    ...(query !== undefined ? { query } : {}),
    result,
    ...(workdir !== undefined ? { workdir } : {}),
    ...(patch !== undefined ? { patch } : {}),
    ...(subcommand !== undefined ? { subcommand } : {}),
    exitCode,
  };
  withResult.set(result, { call, action });
  return action;
}

/**
 * Every tool call in `entries`, in order, paired with its result when present. The actions are shared and
 * immutable: the same call and result always give the same object.
 */
export function toolActionsOf(entries: readonly Entry[]): ToolAction[] {
  const results = new Map<string, ToolResultEntry>();
  for (const e of entries) if (e.type === 'tool_result') results.set(e.toolCallId, e);
  const out: ToolAction[] = [];
  for (const e of entries) {
    if (e.type !== 'assistant') continue;
    for (const call of e.toolCalls) out.push(actionOf(call, results.get(call.id)));
  }
  return out;
}

/** A call succeeded when its recorded effects say so, else when its exit code is 0 and its result is not an error; null without a result. */
export function commandSucceeded(a: ToolAction): boolean | null {
  if (!a.result) return null;
  const hit = succeeded.get(a);
  if (hit !== undefined) return hit;
  const ok = succeededUncached(a, a.result);
  succeeded.set(a, ok);
  return ok;
}

function succeededUncached(a: ToolAction, result: ToolResultEntry): boolean {
  const e = result.effects;
  if (e?.source === 'measured' && e.failed !== undefined) return !e.failed;
  if (e?.failed !== undefined) return !e.failed;
  if (statusOf(result).failed) return false;
  // Without an exit status, a test runner's own summary ("FAILED (failures=1)", "1 failed") is the best evidence.
  const summary = a.kind === 'command' && a.command !== undefined && isTestCommand(a.command) ? resultTestSummary(result) : undefined;
  return summary === undefined || summaryFailed(summary) !== true;
}

/** True when the call's status was read from its result text rather than recorded. */
export function statusInferred(a: ToolAction): boolean {
  return a.result !== undefined && a.result.effects?.source !== 'measured' && a.result.effects?.failed === undefined;
}

const EMPTY_FILES: ActionFiles = { created: [], modified: [], deleted: [], renamed: [], read: [], inferred: false };

function fromEffects(e: Effects): ActionFiles {
  return {
    created: e.created,
    modified: e.modified,
    deleted: e.deleted,
    renamed: e.renamed,
    read: e.read,
    inferred: e.source === 'inferred',
    ...(e.unknown === undefined ? {} : { unknown: e.unknown }),
  };
}

/**
 * The files a call touched. Recorded effects win; otherwise a successful read or write tool touched the paths it
 * names, and a successful shell command what its text says (inferred). A failed call touched nothing.
 */
export function actionFiles(a: ToolAction): ActionFiles {
  if (!a.result) return EMPTY_FILES;
  const hit = files.get(a);
  if (hit) return hit;
  const f = actionFilesUncached(a, a.result);
  files.set(a, f);
  return f;
}

function actionFilesUncached(a: ToolAction, result: ToolResultEntry): ActionFiles {
  const e = result.effects;
  // An importer may record only the exit status (Codex exec events); the files then still come from the text.
  if (e && (e.source === 'measured' || touchesFiles(e) || e.read.length > 0)) return fromEffects(e);
  if (commandSucceeded(a) !== true) return EMPTY_FILES;
  if (a.kind === 'read') return { ...EMPTY_FILES, read: a.paths };
  if (a.kind === 'modify') {
    const p = a.patch === undefined ? undefined : patchEffects(a.patch);
    if (p && p.created.length + p.modified.length + p.deleted.length + p.renamed.length > 0) return { ...EMPTY_FILES, ...p };
    return a.subcommand === 'create' ? { ...EMPTY_FILES, created: a.paths } : { ...EMPTY_FILES, modified: a.paths };
  }
  if (a.kind !== 'command' || a.command === undefined) return EMPTY_FILES;
  const s = shellEffects(a.command);
  const within = (p: string): string => (a.workdir === undefined || p.startsWith('/') ? p : `${a.workdir.replace(/\/$/, '')}/${p}`);
  return {
    created: s.created.map(within),
    modified: s.modified.map(within),
    deleted: s.deleted.map(within),
    renamed: s.renamed.map((r) => ({ from: within(r.from), to: within(r.to) })),
    read: s.read.map(within),
    inferred: true,
  };
}

export { isTestCommand };
