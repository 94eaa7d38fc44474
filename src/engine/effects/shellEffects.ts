// Best-effort file effects of a shell command line, read from its text: writes (redirections, sed -i, tee, cp, mv, rm, patches, inline scripts) and reads.

/** `a.ts.bak`, `a.ts.orig`, `a.ts~`, `a.ts.bak2`: the destination is a backup of the source. */
function isBackupOf(dest: string, src: string): boolean {
  const d = dest.replace(/^\.\//, '');
  const s = src.replace(/^\.\//, '');
  if (!d.startsWith(s)) return false;
  return /^(?:~|\.(?:bak|orig|backup|old|save|sav|copy|prev)\d*~?)$/i.test(d.slice(s.length));
}
import type { Rename } from '../transcript/effects.js';
import { patchEffects } from './patchEffects.js';
import { parseShell, type SimpleCommand } from './shellWords.js';

export interface ShellEffects {
  readonly created: string[];
  /** Written: the text cannot tell a new file from an existing one, so redirections and in-place edits land here. */
  readonly modified: string[];
  readonly deleted: string[];
  readonly renamed: Rename[];
  readonly read: string[];
}

/** Commands that only run another command: their own options are skipped. */
const WRAPPERS: Readonly<Record<string, number>> = { sudo: 0, time: 0, nohup: 0, command: 0, exec: 0, nice: 0, builtin: 0, timeout: 1, stdbuf: 0, xargs: 0 };
const READERS = new Set(['cat', 'head', 'tail', 'nl', 'less', 'more', 'bat']);
/** Options of head/tail that take a value. */
const VALUED = new Set(['-n', '-c', '--lines', '--bytes']);

/** `a/./b/../c` → `a/c`; keeps leading `..` and absolute paths; '' for the starting directory itself. */
function joinPath(p: string, cwd: string): string {
  const joined = p.startsWith('/') || cwd === '' ? p : `${cwd}/${p}`;
  const parts: string[] = [];
  for (const seg of joined.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else parts.push(seg);
  }
  return (joined.startsWith('/') ? '/' : '') + parts.join('/');
}

/** A file path named in a command, resolved against `cwd`; undefined when only the running shell could know it. */
function normalizeShellPath(p: string, cwd: string): string | undefined {
  // Variables, globs and command substitutions are only known when the shell runs.
  if (p === '' || p === '-' || /[$*?`[\]{}~]/.test(p) || p.startsWith('/dev/') || p.startsWith('/proc/')) return undefined;
  const out = joinPath(p, cwd);
  return out === '' ? undefined : out;
}

const base = (w: string): string => w.slice(w.lastIndexOf('/') + 1);
const operands = (args: readonly string[]): string[] => {
  const out: string[] = [];
  let opts = true;
  for (const a of args) {
    if (opts && a === '--') opts = false;
    else if (opts && a.startsWith('-') && a !== '-') continue;
    else out.push(a);
  }
  return out;
};

/** Writes in inline Python or Node code: open(…, 'w'), Path(…).write_text, fs.writeFileSync(…). */
function scriptWrites(code: string): string[] {
  const out: { at: number; path: string }[] = [];
  const res = [
    /\bopen\(\s*(['"])([^'"]+)\1\s*,\s*(['"])[^'"]*[wax][^'"]*\3/g,
    /\bPath\(\s*(['"])([^'"]+)\1\s*\)\s*\.\s*write_(?:text|bytes)\(/g,
    /\bwriteFileSync\(\s*(['"])([^'"]+)\1/g,
    /\bappendFileSync\(\s*(['"])([^'"]+)\1/g,
  ];
  for (const re of res) for (const m of code.matchAll(re)) if (m[2] !== undefined) out.push({ at: m.index, path: m[2] });
  return out.sort((a, b) => a.at - b.at).map((w) => w.path);
}

interface Acc {
  created: string[];
  modified: string[];
  deleted: string[];
  renamed: Rename[];
  read: string[];
}

function addPatch(acc: Acc, text: string, cwd: string): void {
  const p = patchEffects(text);
  const n = (x: string): string[] => {
    const v = normalizeShellPath(x, cwd);
    return v === undefined ? [] : [v];
  };
  acc.created.push(...p.created.flatMap(n));
  acc.modified.push(...p.modified.flatMap(n));
  acc.deleted.push(...p.deleted.flatMap(n));
  for (const r of p.renamed) {
    const from = normalizeShellPath(r.from, cwd);
    const to = normalizeShellPath(r.to, cwd);
    if (from !== undefined && to !== undefined) acc.renamed.push({ from, to });
  }
}

/** The words after wrappers and `VAR=value` assignments. */
function unwrap(words: readonly string[]): string[] {
  let w = [...words];
  for (;;) {
    while (w.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0] ?? '')) w = w.slice(1);
    const head = base(w[0] ?? '');
    if (head === 'env') {
      w = w.slice(1);
      while (w.length > 0 && ((w[0] ?? '').startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0] ?? ''))) w = w.slice(1);
      continue;
    }
    const skip = WRAPPERS[head];
    if (skip === undefined) return w;
    w = w.slice(1);
    while (w.length > 0 && (w[0] ?? '').startsWith('-')) w = w.slice(1);
    w = w.slice(skip);
  }
}

function simpleEffects(cmd: SimpleCommand, state: { cwd: string }, acc: Acc, depth: number): void {
  const path = (p: string): string | undefined => normalizeShellPath(p, state.cwd);
  const push = (list: string[], p: string | undefined): void => {
    const v = p === undefined ? undefined : path(p);
    if (v !== undefined) list.push(v);
  };
  for (const r of cmd.redirects) {
    if (r.op === '<' || r.op === '<<<' || r.op === '<>') continue;
    push(acc.modified, r.target);
  }
  const words = unwrap(cmd.words);
  const name = base(words[0] ?? '');
  const args = words.slice(1);
  const body = cmd.heredocs.join('\n');
  switch (name) {
    case 'cd': {
      const to = args[0];
      if (to !== undefined && to !== '-' && !/[$*?`~]/.test(to)) state.cwd = joinPath(to, state.cwd);
      return;
    }
    case 'bash':
    case 'sh':
    case 'zsh':
    case 'dash': {
      const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
      const script = c === -1 ? (cmd.heredocs.length > 0 ? body : undefined) : args[c + 1];
      if (script !== undefined && depth < 4) shellInto(script, state.cwd, acc, depth + 1);
      return;
    }
    case 'tee':
      operands(args).forEach((a) => push(acc.modified, a));
      return;
    case 'touch':
      operands(args).forEach((a) => push(acc.modified, a));
      return;
    case 'rm':
    case 'unlink':
    case 'rmdir':
      operands(args).forEach((a) => push(acc.deleted, a));
      return;
    case 'sed': {
      const inPlace = args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'));
      const hasScriptOption = args.some((a) => a === '-e' || a === '-f' || a.startsWith('--expression'));
      const rest: string[] = [];
      for (let i = 0; i < args.length; i++) {
        const a = args[i] ?? '';
        if (a === '-e' || a === '-f') i++;
        else if (!a.startsWith('-')) rest.push(a);
      }
      const fileArgs = hasScriptOption ? rest : rest.slice(1);
      fileArgs.forEach((a) => push(inPlace ? acc.modified : acc.read, a));
      return;
    }
    case 'perl': {
      const inPlace = args.some((a) => /^-[a-zA-Z]*i/.test(a));
      const files: string[] = [];
      let code = '';
      for (let i = 0; i < args.length; i++) {
        const a = args[i] ?? '';
        if (/^-[a-zA-Z]*e$/.test(a)) code += args[++i] ?? '';
        else if (!a.startsWith('-')) files.push(a);
      }
      if (code === '' && files.length > 0) files.shift(); // the script file
      if (inPlace) files.forEach((a) => push(acc.modified, a));
      return;
    }
    case 'cp':
    case 'mv':
    case 'install': {
      const ops = operands(args);
      if (ops.length < 2) return;
      const dest = ops[ops.length - 1] ?? '';
      const sources = ops.slice(0, -1);
      const intoDir = dest.endsWith('/') || sources.length > 1 || args.includes('-t');
      for (const src of sources) {
        const target = intoDir ? `${dest.replace(/\/$/, '')}/${base(src.replace(/\/$/, ''))}` : dest;
        const from = path(src);
        const to = path(target);
        if (to === undefined) continue;
        if (name === 'mv' && from !== undefined) acc.renamed.push({ from, to });
        else acc.modified.push(to);
        // A backup copy (`cp a a.bak`) shows the agent nothing of the file: not a read.
        if (name !== 'mv' && from !== undefined && !isBackupOf(target, src)) acc.read.push(from);
      }
      return;
    }
    case 'git': {
      const sub = args.find((a) => !a.startsWith('-'));
      const after = args.slice(args.indexOf(sub ?? '') + 1);
      if (sub === 'apply' || sub === 'am') {
        if (body !== '') addPatch(acc, body, state.cwd);
      } else if (sub === 'mv') {
        const ops = operands(after);
        const from = path(ops[0] ?? '');
        const to = path(ops[1] ?? '');
        if (ops.length === 2 && from !== undefined && to !== undefined) acc.renamed.push({ from, to });
      } else if (sub === 'rm') operands(after).forEach((a) => push(acc.deleted, a));
      else if (sub === 'restore' || (sub === 'checkout' && after.includes('--'))) {
        const files = sub === 'checkout' ? after.slice(after.indexOf('--') + 1) : operands(after);
        files.forEach((a) => push(acc.modified, a));
      }
      return;
    }
    case 'patch':
      if (body !== '') addPatch(acc, body, state.cwd);
      return;
    case 'apply_patch':
    case 'applypatch':
      addPatch(acc, body !== '' ? body : args.join('\n'), state.cwd);
      return;
    case 'python':
    case 'python3':
    case 'node': {
      const c = args.findIndex((a) => a === '-c' || a === '-e');
      const code = c === -1 ? body : (args[c + 1] ?? '');
      scriptWrites(code).forEach((p) => push(acc.modified, p));
      return;
    }
    default:
      if (READERS.has(name)) {
        const files: string[] = [];
        for (let i = 0; i < args.length; i++) {
          const a = args[i] ?? '';
          if (VALUED.has(a)) i++;
          else if (!a.startsWith('-') && !(name === 'tail' && /^\+\d+$/.test(a))) files.push(a);
        }
        files.forEach((a) => push(acc.read, a));
      }
  }
}

function shellInto(text: string, cwd: string, acc: Acc, depth: number): void {
  const state = { cwd };
  for (const cmd of parseShell(text)) simpleEffects(cmd, state, acc, depth);
}

/** What `command` writes and reads according to its text, paths relative to the directory it ran in. */
export function shellEffects(command: string): ShellEffects {
  const acc: Acc = { created: [], modified: [], deleted: [], renamed: [], read: [] };
  shellInto(command, '', acc, 0);
  const uniq = (xs: string[]): string[] => [...new Set(xs)];
  const written = new Set([...acc.created, ...acc.modified]);
  return {
    created: uniq(acc.created),
    modified: uniq(acc.modified).filter((p) => !acc.created.includes(p)),
    deleted: uniq(acc.deleted),
    renamed: acc.renamed,
    read: uniq(acc.read).filter((p) => !written.has(p)),
  };
}
