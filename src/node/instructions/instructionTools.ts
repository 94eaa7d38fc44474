// The tool layer of instructions: the `skill` tool (a skill's body and files) and Ask mode's refusal of every tool that writes or runs, whatever the prompt says.
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { SKILL_FILES_NOTE, SKILL_TOOL, skillLoadText } from '../../engine/instructions/skills.js';
import { modeLabel } from '../../engine/instructions/mode.js';
import type { ToolHost, ToolResult, ToolSchema } from '../../engine/ports.js';
import { readInstructionFile } from './safeRead.js';
import { skillFileList } from './skillFiles.js';
import type { WorkspaceInstructions } from './workspaceInstructions.js';

/** Tools that only read (or only write Capsule's own records): what Ask mode allows. */
const READ_ONLY_TOOLS: ReadonlySet<string> = new Set([
  'read_file',
  'list_files',
  'search',
  'update_plan',
  'checkpoint',
  'read_compaction_evidence',
  SKILL_TOOL,
]);

const SKILL_TOOL_SCHEMA: ToolSchema = {
  name: SKILL_TOOL,
  description:
    'Load a skill by name: returns its instructions (follow them) and lists the other files in its folder. With "file", returns that file of the skill instead (a path from the list).',
  parameters: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The skill name, as in the list of available skills.' },
      file: { type: 'string', description: 'Optional: a file of the skill to read, relative to its folder.' },
    },
    required: ['name'],
    additionalProperties: false,
  },
};

function fail(content: string): ToolResult {
  return { isError: true, content };
}

export interface InstructionToolOptions {
  /** Tools besides the built-in read-only ones that Ask mode allows (e.g. MCP tools marked read-only). */
  readonly readOnly?: (name: string) => boolean;
}

export class InstructionToolHost implements ToolHost {
  constructor(
    readonly inner: ToolHost,
    readonly instructions: WorkspaceInstructions,
    private readonly opts: InstructionToolOptions = {},
  ) {}

  /** The skill tool is offered while there are skills (the list is read before every request). */
  schemas(): readonly ToolSchema[] {
    const inner = this.inner.schemas();
    return this.instructions.skills.length === 0 ? inner : [...inner, SKILL_TOOL_SCHEMA];
  }

  async run(name: string, argsJson: string, signal: AbortSignal): Promise<ToolResult> {
    if (name === SKILL_TOOL) return this.runSkill(argsJson);
    const mode = this.instructions.mode;
    if (mode === 'ask' && !READ_ONLY_TOOLS.has(name) && this.opts.readOnly?.(name) !== true) {
      return fail(
        `Refused: the chat is in ${modeLabel(mode)} mode (read-only), so ${name} is not available. Describe the change instead; the user can switch to Agent mode to make it.`,
      );
    }
    return this.inner.run(name, argsJson, signal);
  }

  endTurn(): Promise<string | undefined> {
    return this.inner.endTurn?.() ?? Promise.resolve(undefined);
  }

  async dispose(): Promise<void> {
    const d = (this.inner as { dispose?: () => Promise<void> }).dispose;
    if (d !== undefined) await d.call(this.inner);
  }

  private async runSkill(argsJson: string): Promise<ToolResult> {
    let args: unknown;
    try {
      args = JSON.parse(argsJson);
    } catch {
      return fail('The skill tool takes {"name": "<skill>"} (optionally "file"); the arguments were not JSON.');
    }
    const a = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
    const name = typeof a['name'] === 'string' ? a['name'] : '';
    const skill = this.instructions.skills.find((s) => s.name === name);
    if (skill === undefined) {
      const names = this.instructions.skills.map((s) => s.name);
      return fail(`There is no skill "${name.slice(0, 100)}". Available: ${names.length === 0 ? 'none' : names.join(', ')}.`);
    }
    const file = a['file'];
    if (skill.single === true && typeof file === 'string' && file.trim() !== '')
      return fail(`"${name}" is a single rule file (${skill.where}); it has no other files.`);
    if (typeof file === 'string' && file.trim() !== '') {
      // Confined to the skill's own folder (links resolved), like the body.
      const realDir = await realpath(skill.dir).catch(() => undefined);
      if (realDir === undefined) return fail(`The skill "${name}" is no longer there; its folder was moved or deleted.`);
      const r = await readInstructionFile(join(skill.dir, file), realDir);
      if (!r.ok) return fail(`The skill "${name}" has no readable file ${file.slice(0, 200)}${r.missing ? '' : ` (${r.why})`}.`);
      const rel = file.replace(/^\.\//, '');
      return { isError: false, content: `File ${rel} of skill "${name}":\n\n${r.text}` };
    }
    const list = skill.single === true ? { files: [], more: false } : await skillFileList(skill.dir);
    const files = list.files.length === 0 ? '' : `${SKILL_FILES_NOTE}${list.files.join(', ')}${list.more ? ', …' : ''}`;
    return { isError: false, content: `${skillLoadText(name, skill.where, skill.body)}${files}` };
  }
}
