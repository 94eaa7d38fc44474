// The completion list for a draft, from the command catalog; pure (no DOM) so it is tested in plain Node.
import { COMMANDS, SLASH_COMPLETIONS, type SlashCompletion } from '../src/protocol/commands.js';

/** The popup's lines, from the one command catalog. */
export const SLASH_COMMANDS: readonly Completion[] = SLASH_COMPLETIONS;

export type Completion = SlashCompletion;

const EXPORT_PREFIX = `/${COMMANDS.capsuleExport.slash.name} `;

/**
 * Completions for `draft` (the whole input), newest checkpoints first for `/capsule export ck_…`.
 * Only a single-line draft that starts with `/` completes; once arguments are being typed the popup steps aside.
 */
export function completionsFor(draft: string, checkpointIds: readonly string[] = []): Completion[] {
  if (!draft.startsWith('/') || draft.includes('\n')) return [];
  const lower = draft.toLowerCase();
  if (lower.startsWith(EXPORT_PREFIX)) {
    const arg = draft.slice(EXPORT_PREFIX.length);
    if (/\s/.test(arg)) return []; // the checkpoint is chosen; the path follows
    return checkpointIds
      .filter((ck) => ck.toLowerCase().startsWith(arg.toLowerCase()) && ck !== arg)
      .slice(0, 20)
      .map((ck) => ({ label: `${EXPORT_PREFIX}${ck}`, insert: `${EXPORT_PREFIX}${ck} `, detail: 'Checkpoint in this chat' }));
  }
  // Offer a command while the draft is a prefix of it; an exact match comes first, so Enter on it simply sends.
  const matches = SLASH_COMMANDS.filter((c) => c.insert.toLowerCase().startsWith(lower));
  return [...matches.filter((c) => c.insert.toLowerCase() === lower), ...matches.filter((c) => c.insert.toLowerCase() !== lower)];
}

/** Enter on this completion sends the draft as it is instead of completing it. */
export function isExact(c: Completion, draft: string): boolean {
  return c.insert.toLowerCase() === draft.toLowerCase();
}
