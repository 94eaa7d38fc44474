// Finds and reads the instruction files of a workspace and of the user, by family (AGENTS.md, CLAUDE.md, Copilot, Cline, Cursor), as candidates with their scope.
import { readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { globsField, parseFrontMatter } from '../../engine/instructions/frontMatter.js';
import type { CandidateFile } from '../../engine/instructions/scope.js';
import { expandImports } from './claudeImports.js';
import { promptText, readInstructionFile } from './safeRead.js';

export const INSTRUCTION_FAMILIES = ['agents', 'claude', 'copilot', 'cline', 'cursor', 'user'] as const;
export type InstructionFamily = (typeof INSTRUCTION_FAMILIES)[number];

export interface FileReadContext {
  /** The workspace folder (the first root) and its real path. */
  readonly workspace: string;
  readonly realWorkspace: string;
  /** The user's ~/.capsule folder and its real path, when it exists. */
  readonly userDir?: { readonly path: string; readonly real: string };
  readonly families: ReadonlySet<InstructionFamily>;
  readonly warn: (message: string) => void;
}

/** Most files read from one rules folder; more are named in a warning. */
const MAX_FOLDER_FILES = 50;

async function one(ctx: FileReadContext, rel: string): Promise<string | undefined> {
  const r = await readInstructionFile(join(ctx.workspace, rel), ctx.realWorkspace);
  if (r.ok) return r.text;
  if (!r.missing) ctx.warn(`Instruction file ${rel} skipped: ${r.why}.`);
  return undefined;
}

async function filesIn(ctx: FileReadContext, relDir: string, suffix: (name: string) => boolean): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(join(ctx.workspace, relDir), { withFileTypes: true })).filter((d) => !d.isDirectory() && suffix(d.name)).map((d) => d.name);
  } catch {
    return [];
  }
  names.sort();
  if (names.length > MAX_FOLDER_FILES)
    ctx.warn(`Instruction folder ${relDir} has ${names.length} files; only the first ${MAX_FOLDER_FILES} (by name) are read.`);
  return names.slice(0, MAX_FOLDER_FILES).map((n) => posix.join(relDir, n));
}

function always(key: string, label: string, text: string): CandidateFile {
  return { key, label, text: promptText(text), applies: { kind: 'always' } };
}

async function claudeFiles(ctx: FileReadContext): Promise<CandidateFile[]> {
  const out: CandidateFile[] = [];
  for (const rel of ['CLAUDE.md', '.claude/CLAUDE.md', 'CLAUDE.local.md']) {
    const text = await one(ctx, rel);
    if (text === undefined) continue;
    out.push(always(`file:${rel}`, rel, text));
    for (const imp of await expandImports(ctx.workspace, ctx.realWorkspace, rel, text, ctx.warn)) {
      out.push({ key: `file:${imp.rel}`, label: `${imp.rel} (imported by ${imp.importedBy})`, text: imp.text, applies: { kind: 'always' } });
    }
  }
  return out;
}

/** A rules file with front matter: `applyTo` (Copilot) or `alwaysApply` / `globs` (Cursor); a Cursor rule with only a `description` is offered like a skill (cursorRules.ts). */
function scoped(ctx: FileReadContext, rel: string, text: string, globKey: 'applyTo' | 'globs'): CandidateFile | undefined {
  const fm = parseFrontMatter(text);
  if (!fm.ok) {
    ctx.warn(`Instruction file ${rel} skipped: ${fm.error}.`);
    return undefined;
  }
  const body = promptText(fm.value.body.replace(/^\s*\n/, ''));
  if (fm.value.fields.get('alwaysApply') === true) return always(`file:${rel}`, rel, body);
  const globs = globsField(fm.value, globKey);
  if (globs.length === 0) return undefined;
  if (globs.some((g) => g === '**' || g === '**/*')) return always(`file:${rel}`, rel, body);
  return { key: `file:${rel}`, label: `${rel} (applies to ${globs.join(', ')})`, text: body, applies: { kind: 'globs', globs } };
}

async function copilotFiles(ctx: FileReadContext): Promise<CandidateFile[]> {
  const out: CandidateFile[] = [];
  const main = await one(ctx, '.github/copilot-instructions.md');
  if (main !== undefined) out.push(always('file:.github/copilot-instructions.md', '.github/copilot-instructions.md', main));
  for (const rel of await filesIn(ctx, '.github/instructions', (n) => n.endsWith('.instructions.md'))) {
    const text = await one(ctx, rel);
    const c = text === undefined ? undefined : scoped(ctx, rel, text, 'applyTo');
    if (c !== undefined) out.push(c);
  }
  return out;
}

async function clineFiles(ctx: FileReadContext): Promise<CandidateFile[]> {
  const asFile = await readInstructionFile(join(ctx.workspace, '.clinerules'), ctx.realWorkspace);
  if (asFile.ok) return [always('file:.clinerules', '.clinerules', asFile.text)];
  const out: CandidateFile[] = [];
  for (const rel of await filesIn(ctx, '.clinerules', (n) => /\.(md|txt)$/i.test(n))) {
    const text = await one(ctx, rel);
    if (text !== undefined) out.push(always(`file:${rel}`, rel, text));
  }
  if (out.length === 0 && !asFile.missing && !/a folder/.test(asFile.why)) ctx.warn(`Instruction file .clinerules skipped: ${asFile.why}.`);
  return out;
}

async function cursorFiles(ctx: FileReadContext): Promise<CandidateFile[]> {
  const out: CandidateFile[] = [];
  for (const rel of await filesIn(ctx, '.cursor/rules', (n) => n.endsWith('.mdc'))) {
    const text = await one(ctx, rel);
    const c = text === undefined ? undefined : scoped(ctx, rel, text, 'globs');
    if (c !== undefined) out.push(c);
  }
  return out;
}

/**
 * Folders between the workspace root (excluded) and each touched path, shallow first, `/`-terminated. The path itself
 * counts as a folder too (a listing or a command's cwd names one); for a file, reading `<file>/AGENTS.md` just finds nothing.
 */
export function foldersOf(touchedRel: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const p of touchedRel) {
    const parts = p.split('/').filter((x) => x !== '' && x !== '.');
    for (let i = 1; i <= parts.length; i++) dirs.add(`${parts.slice(0, i).join('/')}/`);
  }
  return [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/** Nested AGENTS.md (and CLAUDE.md, as Claude Code reads them) on the way to the paths the agent worked on; each applies to work under its folder. */
async function nestedFiles(ctx: FileReadContext, folders: readonly string[], names: readonly string[]): Promise<CandidateFile[]> {
  const out: CandidateFile[] = [];
  for (const dir of folders) {
    for (const name of names) {
      const rel = `${dir}${name}`;
      const text = await one(ctx, rel);
      if (text !== undefined)
        out.push({ key: `file:${rel}`, label: `${rel} (applies to work under ${dir})`, text: promptText(text), applies: { kind: 'under', dir } });
    }
  }
  return out;
}

/** Every candidate file of the chosen families, in prompt order (the user's first, then the workspace's, scoped ones last). */
export async function readCandidates(ctx: FileReadContext, folders: readonly string[]): Promise<CandidateFile[]> {
  const out: CandidateFile[] = [];
  const f = ctx.families;
  if (f.has('user') && ctx.userDir !== undefined) {
    const r = await readInstructionFile(join(ctx.userDir.path, 'AGENTS.md'), ctx.userDir.real);
    if (r.ok) out.push(always('user:AGENTS.md', '~/.capsule/AGENTS.md (yours, in every workspace)', r.text));
    else if (!r.missing) ctx.warn(`Instruction file ~/.capsule/AGENTS.md skipped: ${r.why}.`);
  }
  if (f.has('agents')) {
    const root = await one(ctx, 'AGENTS.md');
    if (root !== undefined) out.push(always('file:AGENTS.md', 'AGENTS.md', root));
  }
  if (f.has('claude')) out.push(...(await claudeFiles(ctx)));
  if (f.has('copilot')) out.push(...(await copilotFiles(ctx)));
  if (f.has('cline')) out.push(...(await clineFiles(ctx)));
  if (f.has('cursor')) out.push(...(await cursorFiles(ctx)));
  const nested = [...(f.has('agents') ? ['AGENTS.md'] : []), ...(f.has('claude') ? ['CLAUDE.md'] : [])];
  if (nested.length > 0) out.push(...(await nestedFiles(ctx, folders, nested)));
  return out;
}
