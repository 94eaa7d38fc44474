// The instruction port of a workspace: instruction files by family and scope, the skill index, and the chat mode, read fresh for every request (unchanged files cost a stat and a read).
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, posix, relative } from 'node:path';
import { DEFAULT_MODE, modeSource, type ChatMode } from '../../engine/instructions/mode.js';
import type { InstructionPort, InstructionRead } from '../../engine/instructions/port.js';
import { applicableFiles } from '../../engine/instructions/scope.js';
import { skillIndexSource } from '../../engine/instructions/skills.js';
import { makeSource, type InstructionSource } from '../../engine/instructions/sources.js';
import { foldersOf, INSTRUCTION_FAMILIES, readCandidates, type InstructionFamily } from './instructionFiles.js';
import { requestedCursorRules } from './cursorRules.js';
import { findSkills, type FoundSkill } from './skillFiles.js';
import { instructionReport } from './instructionReport.js';

/** How the share check counts: the session's tokenizer and window (`capsule.instructions.maxWindowShare`). */
export interface InstructionBudget {
  readonly tokens: (text: string) => number;
  readonly window: () => number;
  readonly share?: number;
}

export interface WorkspaceInstructionsOptions {
  /** Workspace folders; instruction files and skills are read from the first. */
  readonly roots: readonly string[];
  /** Which families are read (`capsule.instructions.families`); default all. */
  readonly families?: readonly InstructionFamily[];
  /** Read skills (default true). */
  readonly skills?: boolean;
  /** Restricted Mode (an untrusted workspace): no instruction file and no skill is read. */
  readonly restricted?: () => boolean;
  /** The user's folder for AGENTS.md and skills; default ~/.capsule. Null: none. */
  readonly userDir?: string | null;
  readonly mode?: ChatMode;
  /** When set, instructions over the share of the window add a warning naming the file to trim. */
  readonly budget?: InstructionBudget;
}

async function realOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/** A path a tool call named, relative to the workspace with `/`; undefined when it is outside. */
function workspaceRelative(workspace: string, p: string): string | undefined {
  const abs = isAbsolute(p) ? p : join(workspace, p);
  const rel = relative(workspace, abs).split('\\').join('/');
  if (rel === '' || rel === '.') return '';
  if (rel.startsWith('../') || rel === '..' || isAbsolute(rel)) return undefined;
  return posix.normalize(rel);
}

export class WorkspaceInstructions implements InstructionPort {
  #mode: ChatMode;
  #skills: readonly FoundSkill[] = [];
  #sources: readonly InstructionSource[] = [];

  constructor(private readonly opts: WorkspaceInstructionsOptions) {
    this.#mode = opts.mode ?? DEFAULT_MODE;
  }

  get mode(): ChatMode {
    return this.#mode;
  }

  /** The next read carries the new mode, so the switch reaches the model as one system update before the next request. */
  setMode(mode: ChatMode): void {
    this.#mode = mode;
  }

  /** The skills found by the latest read. */
  skillText(name: string): { readonly where: string; readonly body: string } | undefined {
    const s = this.#skills.find((x) => x.name === name);
    return s === undefined ? undefined : { where: s.where, body: s.body };
  }

  get skills(): readonly FoundSkill[] {
    return this.#skills;
  }

  /** The sources of the latest read, in prompt order. */
  get sources(): readonly InstructionSource[] {
    return this.#sources;
  }

  async read(touched: readonly string[]): Promise<InstructionRead> {
    const warnings: string[] = [];
    const warn = (m: string): void => {
      if (!warnings.includes(m)) warnings.push(m);
    };
    const sources: InstructionSource[] = [];
    const workspace = this.opts.roots[0];
    const restricted = this.opts.restricted?.() === true;
    const userPath = this.opts.userDir === undefined ? join(homedir(), '.capsule') : this.opts.userDir;
    const userReal = restricted || userPath === null ? undefined : await realOrUndefined(userPath);
    const userDir = userPath !== null && userReal !== undefined ? { path: userPath, real: userReal } : undefined;
    const realWorkspace = workspace === undefined || restricted ? undefined : await realOrUndefined(workspace);
    const families = new Set<InstructionFamily>(this.opts.families ?? INSTRUCTION_FAMILIES);
    if (workspace !== undefined && realWorkspace !== undefined) {
      const rel = touched.flatMap((p) => {
        const r = workspaceRelative(workspace, p);
        return r === undefined || r === '' ? [] : [r];
      });
      const candidates = await readCandidates({ workspace, realWorkspace, ...(userDir === undefined ? {} : { userDir }), families, warn }, foldersOf(rel));
      for (const f of applicableFiles(candidates, rel)) sources.push(makeSource(f.key, 'file', f.label, f.text));
    }
    const ws = realWorkspace === undefined || workspace === undefined ? undefined : { path: workspace, real: realWorkspace };
    // Cursor's "agent requested" rules are loaded on demand like skills, so they are found where skills are.
    const rules = ws !== undefined && families.has('cursor') && this.opts.skills !== false && !restricted ? await requestedCursorRules(ws, warn) : [];
    this.#skills = this.opts.skills === false || restricted ? [] : await findSkills(ws, userDir, warn, rules);
    const index = skillIndexSource(this.#skills);
    if (index !== undefined) sources.push(index);
    const mode = modeSource(this.#mode);
    if (mode !== undefined) sources.push(mode);
    this.#sources = sources;
    const b = this.opts.budget;
    const over = b === undefined ? undefined : instructionReport(sources, b.tokens, b.window(), b.share).overShare;
    if (over !== undefined) warn(over);
    return { sources, warnings };
  }
}
