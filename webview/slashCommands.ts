// The chat's slash commands and the completion list for a draft; pure (no DOM) so it is tested in plain Node.

export interface SlashCommand {
  /** What the popup shows, with argument placeholders. */
  readonly label: string;
  /** What picking it puts in the input. */
  readonly insert: string;
  readonly detail: string;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { label: '/compact [focus]', insert: '/compact ', detail: 'Compact the context now; optional focus for the summary' },
  { label: '/budget', insert: '/budget', detail: 'Show the context budget' },
  { label: '/auto-compact on', insert: '/auto-compact on', detail: 'Turn automatic compaction on' },
  { label: '/auto-compact off', insert: '/auto-compact off', detail: 'Turn soft triggers off (hard-limit protection stays on)' },
  { label: '/checkpoint [note]', insert: '/checkpoint ', detail: 'Mark this moment; rewind to it from the Checkpoints tree' },
  { label: '/milestone [note]', insert: '/milestone ', detail: 'Record a milestone (compacts at the next request when auto-compact is on)' },
  { label: '/pivot [note]', insert: '/pivot ', detail: 'Record a plan pivot (compacts at the next request when auto-compact is on)' },
  { label: '/capsule', insert: '/capsule', detail: 'Show the latest capsule' },
  { label: '/capsule create "title"', insert: '/capsule create "', detail: 'Save the current state as a portable capsule' },
  { label: '/capsule export ck_… path', insert: '/capsule export ', detail: 'Write a checkpoint’s capsule to a .capsule.md file' },
  { label: '/capsule load path', insert: '/capsule load ', detail: 'Load a .capsule.md file as data' },
  { label: '/mode ask', insert: '/mode ask', detail: 'Ask mode: read-only, writes and commands are refused' },
  { label: '/mode agent', insert: '/mode agent', detail: 'Agent mode: edits and commands with your approval' },
  { label: '/skills', insert: '/skills', detail: 'List the skills, their tokens and which are active' },
];

export interface Completion {
  readonly label: string;
  readonly insert: string;
  readonly detail: string;
}

const EXPORT_PREFIX = '/capsule export ';

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
