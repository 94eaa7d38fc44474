// Turns a model's summary answer into a complete capsule: parse, fill from the ledger, flag invented paths, render.
import type { CapsuleEntry, Entry } from '../transcript/schema.js';
import {
  type CapsuleContent,
  type SectionName,
  SECTION_NAMES,
  completeFromLedger,
  flagInventedPaths,
  parseCapsuleSections,
  renderCapsule,
} from './capsuleFormat.js';
import type { Ledger } from './ledger.js';

/** Everything the model could have learned paths from: messages, tool arguments and results, the previous capsule. */
export function transcriptTextOf(entries: readonly Entry[], previousCapsule?: CapsuleEntry): string {
  const parts: string[] = previousCapsule ? [previousCapsule.summary] : [];
  for (const e of entries) {
    if (e.type === 'user' || e.type === 'tool_result') parts.push(e.content);
    else if (e.type === 'assistant') parts.push(e.content, ...e.toolCalls.map((c) => c.arguments));
  }
  return parts.join('\n');
}

export interface AssembledCapsule {
  readonly content: CapsuleContent;
  /** renderCapsule(content): what goes into CapsuleEntry.summary. */
  readonly text: string;
  /** Sections the model did not write, filled from the ledger. */
  readonly filled: readonly SectionName[];
  /** Sections the model wrote, in canonical order. */
  readonly fromModel: readonly SectionName[];
  readonly flaggedPaths: readonly string[];
}

/** The first line of a section the model did not write: the reader (and the next summarizer) knows where it came from. */
export const FILLED_MARK = '_(Filled from the ledger: the summary did not include this section.)_';

/**
 * A capsule from the model's answer: `full` when every section arrived, `partial` when some were filled from the
 * ledger (each marked). An answer with no recognizable section at all is kept as Critical Context (it is still
 * the model's summary) and every other section is filled from the ledger.
 */
export function assembleCapsule(args: { readonly answer: string; readonly ledger: Ledger; readonly transcriptText: string }): AssembledCapsule {
  const parsed = parseCapsuleSections(args.answer);
  const own: Partial<Record<SectionName, string>> =
    parsed.missing.length === SECTION_NAMES.length && parsed.preamble !== '' ? { ...parsed.sections, 'Critical Context': parsed.preamble } : parsed.sections;
  const completed = completeFromLedger(own, args.ledger);
  const filled = completed.filled;
  const sections = { ...completed.sections };
  for (const name of filled) sections[name] = `${FILLED_MARK}\n${sections[name]}`;
  const flaggedPaths = flagInventedPaths(own, args.ledger, args.transcriptText);
  const content: CapsuleContent = { sections, ledger: args.ledger, quality: filled.length > 0 ? 'partial' : 'full', flaggedPaths };
  return { content, text: renderCapsule(content), filled, fromModel: SECTION_NAMES.filter((n) => !filled.includes(n)), flaggedPaths };
}
