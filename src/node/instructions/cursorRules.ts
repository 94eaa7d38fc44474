// Cursor's "agent requested" rules: a `.cursor/rules/*.mdc` with a `description` but neither `alwaysApply` nor `globs`, offered like a skill (its description in the index, its body loaded on demand).
import { readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { globsField, parseFrontMatter, stringField } from '../../engine/instructions/frontMatter.js';
import { MAX_SKILL_DESCRIPTION, MAX_SKILL_NAME } from '../../engine/instructions/skills.js';
import { promptText, readInstructionFile } from './safeRead.js';
import type { FoundSkill } from './skillFiles.js';

const RULES_DIR = '.cursor/rules';
/** Most rules read from the folder (the always-on reader has the same bound). */
const MAX_RULES = 50;

/** A skill name from the rule's file name: `API Style.mdc` → `api-style` (the skill tool is called with it). */
export function ruleSkillName(fileName: string): string {
  return fileName
    .replace(/\.mdc$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SKILL_NAME)
    .replace(/-+$/, '');
}

/** The description-only rules of the workspace as skills; a rule with a bad front matter or an unusable name is one warning. */
export async function requestedCursorRules(workspace: { readonly path: string; readonly real: string }, warn: (m: string) => void): Promise<FoundSkill[]> {
  let names: string[];
  try {
    names = (await readdir(join(workspace.path, RULES_DIR), { withFileTypes: true }))
      .filter((d) => !d.isDirectory() && d.name.endsWith('.mdc'))
      .map((d) => d.name);
  } catch {
    return [];
  }
  const out: FoundSkill[] = [];
  for (const n of names.sort().slice(0, MAX_RULES)) {
    const where = posix.join(RULES_DIR, n);
    const r = await readInstructionFile(join(workspace.path, RULES_DIR, n), workspace.real);
    // The always-on reader already warned about an unreadable or malformed file.
    if (!r.ok) continue;
    const fm = parseFrontMatter(r.text);
    if (!fm.ok || fm.value.fields.get('alwaysApply') === true || globsField(fm.value, 'globs').length > 0) continue;
    const description = stringField(fm.value, 'description')?.trim() ?? '';
    if (description === '') continue;
    const name = ruleSkillName(n);
    if (name === '') {
      warn(`Cursor rule ${where} skipped: its file name gives no usable name (letters or digits).`);
      continue;
    }
    out.push({
      name,
      description: description.slice(0, MAX_SKILL_DESCRIPTION),
      where,
      body: promptText(fm.value.body.replace(/^\s*\n/, '')),
      dir: join(workspace.path, RULES_DIR),
      realRoot: workspace.real,
      single: true,
    });
  }
  return out;
}
