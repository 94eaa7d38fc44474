// Agent Skills (SKILL.md folders): checking the front matter, the index the prompt carries (names and descriptions only), and which skills the branch has loaded.
import { toolActionsOf } from '../compaction/toolActions.js';
import type { Entry } from '../transcript/schema.js';
import { parseFrontMatter, stringField } from './frontMatter.js';
import { makeSource, type InstructionSource } from './sources.js';

/** The tool that loads a skill's body (and reads the skill's other files). */
export const SKILL_TOOL = 'skill';
export const MAX_SKILL_NAME = 64;
export const MAX_SKILL_DESCRIPTION = 1024;

export interface SkillInfo {
  readonly name: string;
  readonly description: string;
  /** Where it was found, as shown to the user (e.g. `.claude/skills/pdf/SKILL.md`, `~/.capsule/skills/x/SKILL.md`). */
  readonly where: string;
  /** The body after the front matter, exactly. */
  readonly body: string;
}

export type SkillParse = { readonly ok: true; readonly skill: SkillInfo } | { readonly ok: false; readonly error: string };

/** Validates a SKILL.md as the Agent Skills format asks: `name` (lowercase, digits, single hyphens, ≤ 64) and a non-empty `description` (≤ 1024). */
export function parseSkill(text: string, where: string, folderName: string): SkillParse {
  const fm = parseFrontMatter(text);
  if (!fm.ok) return { ok: false, error: fm.error };
  if (fm.value.fields.size === 0) return { ok: false, error: 'no front matter (--- name: … description: … ---)' };
  const name = stringField(fm.value, 'name')?.trim() ?? '';
  const description = stringField(fm.value, 'description')?.trim() ?? '';
  if (name === '') return { ok: false, error: 'the front matter has no name' };
  if (name.length > MAX_SKILL_NAME || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name))
    return { ok: false, error: `the name "${name.slice(0, 80)}" is not 1–64 lowercase letters, digits and single hyphens` };
  if (description === '') return { ok: false, error: 'the front matter has no description' };
  if (description.length > MAX_SKILL_DESCRIPTION)
    return { ok: false, error: `the description is ${description.length} characters (at most ${MAX_SKILL_DESCRIPTION})` };
  // The format asks the folder to carry the name; a mismatch is tolerated (other agents load such skills too) but the name wins.
  void folderName;
  return { ok: true, skill: { name, description, where, body: fm.value.body.replace(/^\s*\n/, '') } };
}

/** The index in the prompt: one line per skill, and how to load one. Undefined when there are no skills. */
export function skillIndexSource(skills: readonly SkillInfo[]): InstructionSource | undefined {
  if (skills.length === 0) return undefined;
  const lines = [
    `Skills are instructions for particular tasks. When a task matches a skill's description, call the ${SKILL_TOOL} tool with its name first and follow what it returns.`,
    ...skills.map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, ' ')}`),
  ];
  return makeSource('skills:index', 'other', 'Available skills', lines.join('\n'));
}

/** What the skill tool returns for a skill's body (the list of its other files may follow, after SKILL_FILES_NOTE). */
export function skillLoadText(name: string, where: string, body: string): string {
  return `Skill "${name}" (${where}). Follow these instructions:\n\n${body.replace(/\s+$/, '')}`;
}

/** Opens the list of a skill's other files in the skill tool's answer. */
export const SKILL_FILES_NOTE = '\n\nOther files of this skill (read one with the skill tool and "file"): ';

/** True when `content`, a skill load's result, delivered exactly this body (an edit since makes it false). */
export function loadDelivered(content: string, name: string, where: string, body: string): boolean {
  const t = skillLoadText(name, where, body);
  return content === t || content.startsWith(`${t}${SKILL_FILES_NOTE}`);
}

export interface LoadedSkill {
  readonly name: string;
  /** The tool result that delivered the body, as the model read it. */
  readonly resultId: string;
  readonly content: string;
}

/** Skills the branch loaded (a successful skill call without `file`), first load order, each with its latest load's result. */
export function loadedSkills(branch: readonly Entry[]): LoadedSkill[] {
  const byName = new Map<string, LoadedSkill>();
  for (const a of toolActionsOf(branch)) {
    if (a.name !== SKILL_TOOL || a.skill === undefined || a.result === undefined || a.result.isError) continue;
    // A call with `file` read one of the skill's other files, not its body.
    if (a.paths.length > 0) continue;
    const prev = byName.get(a.skill);
    if (prev !== undefined) byName.delete(a.skill);
    byName.set(a.skill, { name: a.skill, resultId: a.result.id, content: a.result.content });
  }
  return [...byName.values()];
}
