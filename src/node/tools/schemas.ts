// The workspace tools' names, JSON schemas (in a fixed order: prompt caching keys on the exact tool list) and zod argument schemas.
import * as z from '../../engine/zod.js';
import { READ_COMPACTION_EVIDENCE_TOOL } from '../../engine/compaction/evidence.js';
import { UPDATE_PLAN_TOOL, UPDATE_PLAN_TOOL_NAME } from '../../engine/compaction/taskPlan.js';
import type { ToolSchema } from '../../engine/ports.js';
import { optionalBool, optionalInt, optionalString } from './toolArgs.js';
import type { ArgHints } from './toolArgs.js';
import { formatBytes } from './types.js';
import type { ToolLimits } from './types.js';

// Names and argument keys match what the ledger reads (toolActions.ts): `path`, `command`, `query`.
export const TOOL_NAMES = {
  readFile: 'read_file',
  listFiles: 'list_files',
  search: 'search',
  writeFile: 'write_file',
  editFile: 'edit_file',
  runCommand: 'run_command',
  checkpoint: 'checkpoint',
  updatePlan: UPDATE_PLAN_TOOL_NAME,
  evidence: READ_COMPACTION_EVIDENCE_TOOL.name,
} as const;

const MAX_PATH = 4_096;
const MAX_LINE = 100_000_000;
const pathString = z.string().check(z.minLength(1), z.maxLength(MAX_PATH));
/** Workspace-relative path: what every path argument says about itself. */
const PATH_DOC = 'Path relative to the workspace root (or absolute inside the workspace).';

export const readFileArgs = z.strictObject({ path: pathString, startLine: optionalInt(1, MAX_LINE), endLine: optionalInt(1, MAX_LINE) });
export const listFilesArgs = (l: ToolLimits) =>
  z.strictObject({ path: optionalString(MAX_PATH), recursive: optionalBool(), maxEntries: optionalInt(1, l.listMaxEntries) });
export const searchArgs = (l: ToolLimits) =>
  z.strictObject({
    query: z.string().check(z.minLength(1), z.maxLength(1_000)),
    path: optionalString(MAX_PATH),
    regex: optionalBool(),
    maxResults: optionalInt(1, l.searchMaxResults),
  });
export const writeFileArgs = z.strictObject({ path: pathString, content: z.string() });
export const editFileArgs = z.strictObject({ path: pathString, oldText: z.string().check(z.minLength(1)), newText: z.string() });
export const runCommandArgs = (l: ToolLimits) =>
  z.strictObject({
    command: z.string().check(z.minLength(1), z.maxLength(100_000)),
    cwd: optionalString(MAX_PATH),
    timeoutMs: optionalInt(1, l.commandMaxTimeoutMs),
  });
export const checkpointArgs = z.strictObject({
  kind: z.enum(['milestone', 'plan_pivot']),
  note: z.string().check(z.trim(), z.minLength(1), z.maxLength(2_000)),
});

export const readFileHints = (l: ToolLimits): ArgHints => ({
  path: 'a non-empty file path string relative to the workspace root',
  startLine: 'a line number of at least 1 (1-based, inclusive)',
  endLine: `a line number of at least 1 (inclusive; at most ${l.readMaxLines} lines are returned per call)`,
});
export const listFilesHints = (l: ToolLimits): ArgHints => ({
  path: 'a folder path string relative to the workspace root (default ".")',
  recursive: 'true or false',
  maxEntries: `an integer from 1 to ${l.listMaxEntries}`,
});
export const searchHints = (l: ToolLimits): ArgHints => ({
  query: 'a non-empty string of at most 1000 characters',
  path: 'a file or folder path string relative to the workspace root (default: the whole workspace)',
  regex: 'true or false',
  maxResults: `an integer from 1 to ${l.searchMaxResults}`,
});
export const writeFileHints: ArgHints = {
  path: 'a non-empty file path string relative to the workspace root',
  content: 'the complete new file content as a string',
};
export const editFileHints: ArgHints = {
  path: 'a non-empty file path string relative to the workspace root',
  oldText: 'a non-empty string copied exactly from the file',
  newText: 'the replacement string (may be empty)',
};
export const runCommandHints = (l: ToolLimits): ArgHints => ({
  command: 'a non-empty shell command string',
  cwd: 'a folder path string inside the workspace (default: the workspace root)',
  timeoutMs: `an integer number of milliseconds from 1 to ${l.commandMaxTimeoutMs}`,
});
export const checkpointHints: ArgHints = {
  kind: 'either "milestone" or "plan_pivot"',
  note: 'a non-empty string of at most 2000 characters saying what was achieved or what changed',
};

function schema(name: string, description: string, properties: Record<string, unknown>, required: readonly string[]): ToolSchema {
  return { name, description, parameters: { type: 'object', properties, required: [...required], additionalProperties: false } };
}

/** The tool list in its fixed order; the optional tools appear only when the host was given their callbacks. */
export function toolSchemas(l: ToolLimits, opts: { readonly checkpoint: boolean; readonly evidence: boolean }): ToolSchema[] {
  const out: ToolSchema[] = [
    schema(
      TOOL_NAMES.readFile,
      `Read a text file. Returns numbered lines ("N<tab>text"). At most ${l.readMaxLines} lines or ${formatBytes(l.readMaxBytes)} per call; ` +
        'use startLine/endLine to read a large file in parts. Binary files are refused.',
      {
        path: { type: 'string', description: PATH_DOC },
        startLine: { type: 'integer', minimum: 1, description: 'First line to read, 1-based (default 1).' },
        endLine: { type: 'integer', minimum: 1, description: 'Last line to read, inclusive (default: end of file, within the cap).' },
      },
      ['path'],
    ),
    schema(
      TOOL_NAMES.listFiles,
      'List the files and folders in a workspace folder, sorted; folders end with "/". Does not descend into .git or node_modules.',
      {
        path: { type: 'string', description: `Folder to list. ${PATH_DOC} Default "." (the workspace root).` },
        recursive: { type: 'boolean', description: 'List subfolders too (default false).' },
        maxEntries: { type: 'integer', minimum: 1, maximum: l.listMaxEntries, description: `Most entries to return (default ${l.listDefaultEntries}).` },
      },
      [],
    ),
    schema(
      TOOL_NAMES.search,
      'Search file contents in the workspace with ripgrep. Returns "path:line:text" per match. Plain text by default; ' +
        'case-insensitive unless the query has an uppercase letter. Honours .gitignore; skips .git and node_modules.',
      {
        query: { type: 'string', description: 'Text to find (a Rust regular expression when regex is true).' },
        path: { type: 'string', description: `File or folder to search in. ${PATH_DOC} Default: the whole workspace.` },
        regex: { type: 'boolean', description: 'Treat query as a regular expression (default false).' },
        maxResults: { type: 'integer', minimum: 1, maximum: l.searchMaxResults, description: `Most matches to return (default ${l.searchDefaultResults}).` },
      },
      ['query'],
    ),
    schema(
      TOOL_NAMES.writeFile,
      'Create a file or replace its whole content. The user sees the diff and must approve. Prefer edit_file for changes to an existing file.',
      {
        path: { type: 'string', description: `${PATH_DOC} Missing folders are created.` },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      ['path', 'content'],
    ),
    schema(
      TOOL_NAMES.editFile,
      'Replace one exact piece of text in an existing file. oldText must match the file exactly (whitespace and indentation included) ' +
        'and occur exactly once; include surrounding lines to make it unique. The user sees the diff and must approve.',
      {
        path: { type: 'string', description: PATH_DOC },
        oldText: { type: 'string', description: 'Text to replace, copied exactly from the file.' },
        newText: { type: 'string', description: 'Text to put in its place (may be empty to delete).' },
      },
      ['path', 'oldText', 'newText'],
    ),
    schema(
      TOOL_NAMES.runCommand,
      `Run a shell command (bash) in the workspace after the user approves it; only in a trusted workspace. Returns stdout and stderr ` +
        `interleaved, then "exit code N". Long output keeps its first ${formatBytes(l.outputHeadBytes)} and last ${formatBytes(l.outputTailBytes)}. ` +
        `Killed after timeoutMs (default ${l.commandDefaultTimeoutMs / 1000} s). Do not start interactive programs.`,
      {
        command: { type: 'string', description: 'The command line, run with bash -c.' },
        cwd: { type: 'string', description: `Working folder. ${PATH_DOC} Default: the workspace root.` },
        timeoutMs: {
          type: 'integer',
          minimum: 1,
          maximum: l.commandMaxTimeoutMs,
          description: `Timeout in milliseconds (default ${l.commandDefaultTimeoutMs}).`,
        },
      },
      ['command'],
    ),
  ];
  out.push(UPDATE_PLAN_TOOL);
  if (opts.checkpoint) {
    out.push(
      schema(
        TOOL_NAMES.checkpoint,
        'Record a checkpoint in the session: "milestone" when a piece of work is done and verified, "plan_pivot" when the plan ' +
          'changes direction. The note says what was achieved or what changed and why. Returns the checkpoint id.',
        {
          kind: { type: 'string', enum: ['milestone', 'plan_pivot'], description: 'What kind of checkpoint this is.' },
          note: { type: 'string', description: 'One or two sentences for the record.' },
        },
        ['kind', 'note'],
      ),
    );
  }
  if (opts.evidence) out.push(READ_COMPACTION_EVIDENCE_TOOL);
  return out;
}
