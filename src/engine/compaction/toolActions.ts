// Reads what each tool call did (files read or modified, commands, skills) from its arguments and result.
import type { Entry, ToolResultEntry } from '../transcript/schema.js';

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
  /** Exit code found in the result text, if any. */
  readonly exitCode: number | null;
}

/** Parses a tool's JSON argument string; models sometimes produce non-objects or broken JSON. */
export function parseToolArgs(json: string): Readonly<Record<string, unknown>> | undefined {
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

const PATH_KEYS = ['path', 'file_path', 'filePath', 'file', 'filename', 'target_file', 'source', 'destination', 'new_path', 'old_path'];
const PATH_LIST_KEYS = ['paths', 'files', 'file_paths'];
const PATCH_KEYS = ['patch', 'diff', 'input'];

/** Normalizes a path the way the ledger stores it: forward slashes, no leading "./". */
export function normalizePath(p: string): string {
  return p.trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

/** Files named by an apply-patch envelope (`*** Update File: x`) or a unified diff (`+++ b/x`). */
export function pathsInPatch(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const envelope = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/.exec(line) ?? /^\*\*\* Move to: (.+)$/.exec(line);
    // Unified diffs prefix paths with a/ and b/; the apply-patch envelope does not.
    const diff = /^(?:\+\+\+|---) (.+?)(?:\t.*)?$/.exec(line)?.[1]?.trim().replace(/^[ab]\//, '');
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

function stringArg(args: Readonly<Record<string, unknown>> | undefined, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = args?.[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(' ');
  }
  return undefined;
}

/** "exit code 1", "exit status 2", "Exit code: 0", "exited with code 127". */
export function exitCodeIn(text: string): number | null {
  // The tool host writes the real status last; output of the command itself may mention other exit codes.
  const all = [...text.matchAll(/exit(?:ed with)?[ _-]?(?:code|status)\s*[:=]?\s*(-?\d+)/gi)];
  const m = all.at(-1);
  return m?.[1] === undefined ? null : Number(m[1]);
}

/** Every tool call in `entries`, in order, paired with its result when present. */
export function toolActionsOf(entries: readonly Entry[]): ToolAction[] {
  const results = new Map<string, ToolResultEntry>();
  for (const e of entries) if (e.type === 'tool_result') results.set(e.toolCallId, e);
  const out: ToolAction[] = [];
  for (const e of entries) {
    if (e.type !== 'assistant') continue;
    for (const call of e.toolCalls) {
      const kind = toolKind(call.name);
      const args = parseToolArgs(call.arguments);
      const result = results.get(call.id);
      const command = kind === 'command' ? stringArg(args, ['command', 'cmd', 'script', 'commandLine']) : undefined;
      const skill = kind === 'skill' ? stringArg(args, ['name', 'skill', 'skill_name', 'skillName', 'id']) : undefined;
      const query = kind === 'search' ? stringArg(args, ['query', 'pattern', 'regex', 'text', 'glob']) : undefined;
      out.push({
        callId: call.id,
        name: call.name,
        kind,
        paths: pathsOf(args, call.arguments, kind),
        ...(command !== undefined ? { command } : {}),
        ...(skill !== undefined ? { skill } : {}),
        ...(query !== undefined ? { query } : {}),
        ...(result ? { result } : {}),
        exitCode: result && kind === 'command' ? exitCodeIn(result.content) : null,
      });
    }
  }
  return out;
}

/** A command succeeded when its exit code is 0, or, without one, when its result is not an error; null without a result. */
export function commandSucceeded(a: ToolAction): boolean | null {
  if (!a.result) return null;
  return a.exitCode !== null ? a.exitCode === 0 : !a.result.isError;
}

const TEST_COMMAND =
  /\b(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|npx\s+(?:jest|vitest|mocha|playwright\s+test)|pytest|py\.test|python3?\s+-m\s+(?:pytest|unittest)|go\s+test|cargo\s+(?:test|nextest)|jest|vitest|mocha|node\s+(?:\S+\s+)*--test|deno\s+test|dotnet\s+test|mvn\s+(?:\S+\s+)*test|gradlew?\s+(?:\S+\s+)*test|make\s+(?:test|check)|ctest|rspec|phpunit|tox)\b/;

/** True for commands that run a test suite. */
export function isTestCommand(command: string): boolean {
  return TEST_COMMAND.test(command);
}
