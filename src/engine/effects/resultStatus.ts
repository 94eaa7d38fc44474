// Exit statuses and failures read from tool-result text in the formats agents actually write, anchored so a command's own output cannot fake one.
import { firstNonBlankLine, lastNonBlankLine } from './textLines.js';

export interface ResultStatus {
  /** null when the text states none. */
  readonly exitCode: number | null;
  /** Set when the text says the call failed without an exit code (a tool error, a timeout). */
  readonly failed: boolean;
}

function jsonExitCode(text: string): number | null {
  const t = text.trimStart();
  if (!t.startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(t);
    if (typeof v !== 'object' || v === null) return null;
    const meta = (v as Record<string, unknown>)['metadata'];
    const code = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['exit_code'] : (v as Record<string, unknown>)['exit_code'];
    return typeof code === 'number' && Number.isInteger(code) ? code : null;
  } catch {
    return null;
  }
}

/**
 * The exit code a tool result states, from (in order): mini-swe-agent's `<returncode>N</returncode>`, a Codex
 * JSON result's `metadata.exit_code`, a first line `Exit code: N` / `Exit code N` / `Process exited with code N`
 * (Codex, Claude Code), or a last line `exit code N` (Capsule's run_command). Numbers elsewhere in the output
 * ("exit status 2" printed by the command) never count.
 */
export function exitCodeOf(text: string): number | null {
  // The literal test first: a plain substring search is far cheaper than the pattern over a long output.
  const tag = text.includes('<returncode>') ? /<returncode>\s*(-?\d+)\s*<\/returncode>/.exec(text) : null;
  if (tag?.[1] !== undefined) return Number(tag[1]);
  const json = jsonExitCode(text);
  if (json !== null) return json;
  const first = firstNonBlankLine(text);
  const head = /^(?:Exit code:?|Process exited with code|Command exited with code)\s*(-?\d+)\b/i.exec(first);
  if (head?.[1] !== undefined) return Number(head[1]);
  const last = lastNonBlankLine(text);
  // "exit status N" is what programs themselves print (go, make), so only the wrappers' wordings count here.
  const tail = /^(?:exit code:?|(?:process |command )?exited with code)\s*(-?\d+)\.?$/i.exec(last);
  return tail?.[1] === undefined ? null : Number(tail[1]);
}

/** Results that are failures whatever their flag says: tool-use errors and missing files (Claude Code, SWE-agent). */
const FAILURE_TEXT = [
  /^\s*<tool_use_error>/,
  /^\s*(?:Error: )?File does not exist\b/i,
  /^\s*The path \S+ does not exist/,
  /^\s*No replacement was performed/,
  /^\s*(?:Error: )?Command timed out\b/i,
];
/** Capsule's run_command notes a timeout on a line of its own, anywhere in the output. */
const KILLED_LINE = /^\s*killed after timeout\b/im;
/**
 * What KILLED_LINE needs somewhere in the text, much cheaper to rule out than a line-anchored search of every line.
 * Lower-casing keeps every text the pattern matches (it ignores ASCII case only), so the check never misses one.
 */
const killedAnywhere = (text: string): boolean => text.toLowerCase().includes('killed after timeout');

/** The status of a result: its exit code when stated, and whether it failed (the flag, the code, or the text). */
export function resultStatus(text: string, isError: boolean): ResultStatus {
  const exitCode = exitCodeOf(text);
  const failed =
    isError || (exitCode !== null && exitCode !== 0) || FAILURE_TEXT.some((re) => re.test(text)) || (killedAnywhere(text) && KILLED_LINE.test(text));
  return { exitCode, failed };
}
