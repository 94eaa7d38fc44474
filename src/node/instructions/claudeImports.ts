// The `@path` imports of CLAUDE.md files: each imported file becomes its own source after its importer, confined to the workspace, cycle-safe, at most five levels deep.
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { promptText, readInstructionFile } from './safeRead.js';

/** Claude Code follows imports at most this many levels deep. */
const MAX_IMPORT_DEPTH = 5;

export interface ImportedFile {
  /** Workspace-relative, `/`-separated. */
  readonly rel: string;
  readonly importedBy: string;
  readonly text: string;
}

/** `@path` tokens outside code spans and fenced blocks that look like a file (a `/` or a `.` in them); e-mail addresses and `@mentions` are not imports. */
function importsOf(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const plain = line.replace(/`[^`]*`/g, '');
    for (const m of plain.matchAll(/(^|\s)@([^\s`'"()<>]+)/g)) {
      const p = (m[2] ?? '').replace(/[.,;:!?)]+$/, '');
      if (p !== '' && (p.includes('/') || p.includes('.'))) out.push(p);
    }
  }
  return out;
}

function toRel(root: string, abs: string): string {
  return relative(root, abs).split('\\').join('/');
}

/**
 * Every file `rootFile` imports, depth first, each once. A cycle, a path out of the workspace (`~` included) or an
 * unreadable file is a one-line warning naming the importer; the rest of the files still load.
 */
export async function expandImports(
  workspace: string,
  realWorkspace: string,
  rootRel: string,
  rootText: string,
  warn: (message: string) => void,
): Promise<ImportedFile[]> {
  const out: ImportedFile[] = [];
  const seen = new Set<string>([rootRel]);
  const walk = async (rel: string, text: string, stack: readonly string[]): Promise<void> => {
    for (const spec of importsOf(text)) {
      if (spec.startsWith('~') || isAbsolute(spec)) {
        warn(`Instruction file ${rel}: the import @${spec} is outside the workspace; it was not read.`);
        continue;
      }
      const abs = resolve(workspace, dirname(rel), spec);
      const target = toRel(workspace, abs);
      if (target.startsWith('../') || target === '..') {
        warn(`Instruction file ${rel}: the import @${spec} is outside the workspace; it was not read.`);
        continue;
      }
      if (stack.includes(target)) {
        warn(`Instruction file ${rel}: @${spec} makes an import cycle (${[...stack, target].join(' → ')}); it was not read again.`);
        continue;
      }
      if (seen.has(target)) continue;
      if (stack.length >= MAX_IMPORT_DEPTH) {
        warn(`Instruction file ${rel}: @${spec} is more than ${MAX_IMPORT_DEPTH} imports deep; it was not read.`);
        continue;
      }
      const r = await readInstructionFile(abs, realWorkspace);
      if (!r.ok) {
        // A missing path is usually prose (a handle, a version); only a real file that cannot be read is worth a warning.
        if (!r.missing) warn(`Instruction file ${target} (imported by ${rel}) skipped: ${r.why}.`);
        continue;
      }
      seen.add(target);
      out.push({ rel: target, importedBy: rel, text: promptText(r.text) });
      await walk(target, r.text, [...stack, target]);
    }
  };
  await walk(rootRel, rootText, [rootRel]);
  return out;
}
