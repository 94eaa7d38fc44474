// The scripted "model" of the end-to-end flow: long answers that fill the window, short ones, and a seven-section capsule.
import type { ChatRequestView, Responder, ScriptedReply } from '../fakes/openaiServer.js';
import { isSummaryRequest, lastUserText } from '../fakes/openaiServer.js';

/** A user message containing this asks the fake model for a long answer. */
export const LONG = '[long]';

const WORDS = [
  'the',
  'module',
  'reads',
  'each',
  'record',
  'from',
  'disk',
  'and',
  'checks',
  'that',
  'its',
  'fields',
  'match',
  'schema',
  'before',
  'writing',
  'a',
  'summary',
  'line',
  'to',
  'log',
  'so',
  'later',
  'steps',
  'can',
  'trust',
  'input',
  'without',
  'parsing',
  'again',
  'when',
  'value',
  'is',
  'missing',
  'we',
  'keep',
  'default',
  'note',
  'why',
  'in',
  'comment',
  'next',
];

/** About `words` tokens of plain English prose in short paragraphs, starting with `tag` so each answer is recognisable. */
export function longText(tag: string, words: number): string {
  const paragraphs: string[] = [`${tag} begins.`];
  let line: string[] = [];
  for (let i = 0; i < words; i++) {
    line.push(WORDS[(i * 7 + Math.floor(i / WORDS.length)) % WORDS.length] ?? 'word');
    if (line.length === 60) {
      paragraphs.push(`${line.join(' ')}.`);
      line = [];
    }
  }
  if (line.length > 0) paragraphs.push(`${line.join(' ')}.`);
  paragraphs.push(`${tag} ends.`);
  return paragraphs.join('\n\n');
}

/** What a good summarizer answers: the seven sections the capsule format asks for. */
export const CAPSULE_TEXT = [
  '## Goal',
  'Write the long reports the user asked for, one per turn.',
  '## Constraints & Preferences',
  '- Plain prose, short paragraphs.',
  '## Progress',
  '- Reports one to three were written in full.',
  '## Key Decisions',
  '- Keep every report self-contained.',
  '## Next Steps',
  '- Answer the next question briefly.',
  '## Critical Context',
  '- The e2e marker word is PELICAN.',
  '## Relevant Files',
  '- README.md',
].join('\n');

export interface ScriptedModel {
  readonly responder: Responder;
  /** How many summary requests were answered. */
  summaries(): number;
}

/**
 * Chat requests: a long streamed answer when the last user message has `[long]`, else a short one that repeats it.
 * Summary requests (tool_choice none): the capsule, a few seconds late so the barrier's live line can be seen.
 */
export function scriptedModel(opts: { readonly longWords: number; readonly summaryDelayMs: number; readonly firstChunkDelayMs: number }): ScriptedModel {
  let longs = 0;
  let summaries = 0;
  const responder = (req: ChatRequestView): ScriptedReply => {
    if (isSummaryRequest(req.body) || req.body.stream !== true) {
      summaries++;
      return { delayMs: opts.summaryDelayMs, then: { text: CAPSULE_TEXT } };
    }
    const user = lastUserText(req.body);
    if (user.includes(LONG)) {
      longs++;
      // The first answer streams slowly so the test can watch it arrive piece by piece.
      return { text: longText(`Report ${longs}`, opts.longWords), ...(longs === 1 ? { chunkDelayMs: opts.firstChunkDelayMs } : {}) };
    }
    return { text: `Short answer to: ${user.slice(0, 80)}` };
  };
  return { responder, summaries: () => summaries };
}
