// Finds the Agent Skills of a workspace and of the user: folders with a SKILL.md under .capsule/skills, .claude/skills, .github/skills and ~/.capsule/skills.
import { readdir } from 'node:fs/promises';
import { join, posix, relative } from 'node:path';
import { parseSkill, type SkillInfo } from '../../engine/instructions/skills.js';
import { readInstructionFile } from './safeRead.js';

const WORKSPACE_SKILL_DIRS = ['.capsule/skills', '.claude/skills', '.github/skills'] as const;
/** A skill folder lists at most this many files for the model. */
const MAX_SKILL_FILES = 100;
/** Most skills read from one skills folder. */
const MAX_SKILLS_PER_DIR = 200;

export interface FoundSkill extends SkillInfo {
  /** The skill's folder on disk, and the real path its files must stay in. */
  readonly dir: string;
  readonly realRoot: string;
  /** One file and nothing beside it (a Cursor rule offered as a skill): no files to list or read. */
  readonly single?: true;
}

async function subfolders(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true }))
      .filter((d) => d.isDirectory() || d.isSymbolicLink())
      .map((d) => d.name)
      .sort()
      .slice(0, MAX_SKILLS_PER_DIR);
  } catch {
    return [];
  }
}

/** The skills in one skills folder; `shown` is how its path is named to the user. */
async function skillsIn(dir: string, shown: string, realRoot: string, warn: (m: string) => void): Promise<FoundSkill[]> {
  const out: FoundSkill[] = [];
  for (const name of await subfolders(dir)) {
    const where = posix.join(shown, name, 'SKILL.md');
    const r = await readInstructionFile(join(dir, name, 'SKILL.md'), realRoot);
    if (!r.ok) {
      if (!r.missing) warn(`Skill ${where} skipped: ${r.why}.`);
      continue;
    }
    const p = parseSkill(r.text, where, name);
    if (!p.ok) {
      warn(`Skill ${where} skipped: ${p.error}.`);
      continue;
    }
    out.push({ ...p.skill, dir: join(dir, name), realRoot });
  }
  return out;
}

/** Every skill, workspace folders first, then the user's, then `also` (Cursor's requested rules); a name already taken is a warning and the first one wins. */
export async function findSkills(
  workspace: { readonly path: string; readonly real: string } | undefined,
  userDir: { readonly path: string; readonly real: string } | undefined,
  warn: (m: string) => void,
  also: readonly FoundSkill[] = [],
): Promise<FoundSkill[]> {
  const all: FoundSkill[] = [];
  if (workspace !== undefined) for (const d of WORKSPACE_SKILL_DIRS) all.push(...(await skillsIn(join(workspace.path, d), d, workspace.real, warn)));
  if (userDir !== undefined) all.push(...(await skillsIn(join(userDir.path, 'skills'), '~/.capsule/skills', userDir.real, warn)));
  all.push(...also);
  const byName = new Map<string, FoundSkill>();
  for (const s of all) {
    const first = byName.get(s.name);
    if (first !== undefined) warn(`Skill ${s.where} skipped: the name "${s.name}" is already taken by ${first.where}.`);
    else byName.set(s.name, s);
  }
  return [...byName.values()];
}

/** The files of a skill folder besides SKILL.md, relative to it, sorted, bounded. */
export async function skillFileList(dir: string): Promise<{ readonly files: readonly string[]; readonly more: boolean }> {
  const files: string[] = [];
  let more = false;
  const walk = async (d: string, depth: number): Promise<void> => {
    if (depth > 4 || more) return;
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p, depth + 1);
      else if (e.isFile()) {
        const rel = relative(dir, p).split('\\').join('/');
        if (rel === 'SKILL.md') continue;
        if (files.length >= MAX_SKILL_FILES) {
          more = true;
          return;
        }
        files.push(rel);
      }
    }
  };
  await walk(dir, 0);
  return { files, more };
}
