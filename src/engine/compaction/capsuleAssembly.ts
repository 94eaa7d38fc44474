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
  readonly flaggedPaths: readonly string[];
}

/**
 * A full-quality capsule from the model's answer. An answer with no recognizable section at all is
 * kept as Critical Context (it is still the model's summary) and every section is filled from the ledger.
 */
export function assembleCapsule(args: { readonly answer: string; readonly ledger: Ledger; readonly transcriptText: string }): AssembledCapsule {
  const parsed = parseCapsuleSections(args.answer);
  const own: Partial<Record<SectionName, string>> =
    parsed.missing.length === SECTION_NAMES.length && parsed.preamble !== '' ? { ...parsed.sections, 'Critical Context': parsed.preamble } : parsed.sections;
  const { sections, filled } = completeFromLedger(own, args.ledger);
  const flaggedPaths = flagInventedPaths(own, args.ledger, args.transcriptText);
  const content: CapsuleContent = { sections, ledger: args.ledger, quality: 'full', flaggedPaths };
  return { content, text: renderCapsule(content), filled, flaggedPaths };
}
