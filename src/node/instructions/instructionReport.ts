// The token report of instructions (/budget, the meter) with the one line that says which file to trim, and of skills (/skills).
import type { SkillInfo } from '../../engine/instructions/skills.js';
import type { InstructionSource } from '../../engine/instructions/sources.js';

/** Default share of the context window instructions may take before the user is told which file to trim (`capsule.instructions.maxWindowShare`). */
export const DEFAULT_INSTRUCTION_SHARE = 0.25;

interface InstructionFileTokens {
  readonly label: string;
  readonly tokens: number;
}

export interface InstructionReport {
  readonly files: readonly InstructionFileTokens[];
  readonly total: number;
  /** Set when the instructions take more than the allowed share of the window: which file to trim. */
  readonly overShare?: string;
}

/** Tokens per source (as the block carries them) and, over the share, the one line telling the user which file to trim. */
export function instructionReport(
  sources: readonly InstructionSource[],
  tokens: (text: string) => number,
  contextWindow: number,
  share = DEFAULT_INSTRUCTION_SHARE,
): InstructionReport {
  const files = sources.map((s) => ({ label: s.label, tokens: tokens(`## ${s.label}\n${s.text}`) }));
  const total = files.reduce((n, f) => n + f.tokens, 0);
  const limit = Math.floor(contextWindow * share);
  if (total <= limit || files.length === 0) return { files, total };
  const largest = [...files].sort((a, b) => b.tokens - a.tokens)[0];
  const pct = Math.round((total / contextWindow) * 100);
  return {
    files,
    total,
    overShare: `Instructions take ${total} tokens, ${pct}% of the ${contextWindow}-token window (more than ${Math.round(share * 100)}%): trim ${largest?.label ?? 'the largest file'} (${largest?.tokens ?? 0} tokens). Nothing was cut; every file is still sent whole.`,
  };
}

/** `/skills`: each skill with its description's and its body's tokens, and whether this chat loaded it. */
export function skillReport(skills: readonly SkillInfo[], tokens: (text: string) => number, active: readonly string[]): string[] {
  if (skills.length === 0) return ['No skills found (folders with a SKILL.md in .capsule/skills, .claude/skills, .github/skills or ~/.capsule/skills).'];
  return skills.map(
    (s) =>
      `${active.includes(s.name) ? '●' : '○'} ${s.name} — ${s.where} · index ${tokens(`- ${s.name}: ${s.description}`)} tokens · body ${tokens(s.body)} tokens${active.includes(s.name) ? ' · active' : ''}`,
  );
}
