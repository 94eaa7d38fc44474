// Instruction sources (files, mode, and anything else that steers the model) as one ordered list with a content hash each, and how they are rendered into the system prompt.

/** What kind of thing a source is; decides how a change to it is worded in a system update. */
export type SourceKind = 'file' | 'mode' | 'other';

export interface InstructionSource {
  /** Stable identity across reads, e.g. `file:AGENTS.md`, `user:AGENTS.md`, `mode:ask`. */
  readonly key: string;
  readonly kind: SourceKind;
  /** How the model and the user see the source named, e.g. `AGENTS.md` or `src/api/AGENTS.md (applies to work under src/api/)`. */
  readonly label: string;
  /** The exact text the model receives (a file's content, verbatim). */
  readonly text: string;
  readonly hash: string;
}

/** A source as recorded in the transcript: enough to know whether the model saw this exact text. */
export interface SourceStamp {
  readonly key: string;
  readonly hash: string;
}

/**
 * A content hash without node:crypto (the engine is pure): two 32-bit FNV-1a passes with different offsets over the
 * UTF-16 code units. It only tells "same text or not" between two reads of the same source, not a security property.
 */
function contentHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c ^ (i & 0xff), 0x01000193 + 0x100) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

export function makeSource(key: string, kind: SourceKind, label: string, text: string): InstructionSource {
  return { key, kind, label, text, hash: contentHash(text) };
}

export function stampsOf(sources: readonly InstructionSource[]): SourceStamp[] {
  return sources.map((s) => ({ key: s.key, hash: s.hash }));
}

/** The heading that opens the instruction block; the budget finds the block by it. */
const INSTRUCTIONS_HEADING = '# Instructions from the user and the project';

const PREAMBLE =
  'The sections below are instruction files of the user and of this workspace, quoted verbatim. Follow them; where two disagree, the later (more specific) one wins. Later system updates may change or add to them.';

/** One source as a section of the block: `## <label>` and its text exactly. */
export function renderSource(s: InstructionSource): string {
  return `## ${s.label}\n${s.text}`;
}

/** The block the system prompt carries: empty when there is no source, so a workspace without instructions sends what it sent before. */
export function renderInstructionBlock(sources: readonly InstructionSource[]): string {
  if (sources.length === 0) return '';
  return [INSTRUCTIONS_HEADING, PREAMBLE, ...sources.map(renderSource)].join('\n\n');
}
