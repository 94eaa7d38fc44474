// What the load dialog says about a portable capsule before it is loaded: its task and a one-line summary of its ledger.
import { parseCapsuleSections } from '../compaction/capsuleFormat.js';
import { LEDGER_HEADING } from '../compaction/ledgerFormat.js';
import type { ParsedCapsuleFile } from './capsuleFile.js';

export interface CapsulePreview {
  /** The Goal section's first line (or the ledger's original task), one line, clipped. */
  readonly task: string;
  /** "3 files modified · 5 commands (1 denied) · last verification: `npm test` → passed", or why there is none. */
  readonly ledger: string;
  readonly checksum: 'verified' | 'edited';
}

const MAX_LINE = 160;

/** One plain line: markdown emphasis and code marks dropped (a dialog shows text, not markdown). */
function oneLine(text: string): string {
  const t = text
    .replace(/\*\*|__|`/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length > MAX_LINE ? `${t.slice(0, MAX_LINE - 1)}…` : t;
}

/** The text after `label` up to the end of its line, from the ledger block. */
function after(ledger: string, label: RegExp): string | undefined {
  return label.exec(ledger)?.[1]?.trim();
}

export function previewOf(file: Pick<ParsedCapsuleFile, 'body' | 'modified' | 'hasLedger'>): CapsulePreview {
  const at = file.body.indexOf(LEDGER_HEADING);
  const ledgerText = at < 0 ? '' : file.body.slice(at);
  const goal = parseCapsuleSections(file.body).sections.Goal ?? '';
  const firstGoal = goal.split('\n').find((l) => l.trim() !== '' && !/^the user's original request/i.test(l.trim())) ?? '';
  const original = /\*\*Original task \(verbatim\):\*\*\n((?:> .*\n?)+)/.exec(ledgerText)?.[1]?.replace(/^> /gm, '') ?? '';
  const task = oneLine(firstGoal.replace(/^>\s*/, '')) || oneLine(original) || 'not recorded';
  let ledger: string;
  if (!file.hasLedger || ledgerText === '') ledger = 'none (the capsule has no ledger)';
  else {
    const files = after(ledgerText, /\*\*Files modified \((\d+)/);
    const commands = after(ledgerText, /\*\*Commands run \((\d+)/);
    const denied = (ledgerText.match(/ → denied\b/g) ?? []).length;
    const verification = after(ledgerText, /\*\*Last verification:\*\* (.*)/);
    ledger = [
      `${files ?? '0'} file(s) modified`,
      `${commands ?? '0'} command(s)${denied > 0 ? ` (${denied} denied)` : ''}`,
      `last verification: ${oneLine(verification ?? 'none recorded')}`,
    ].join(' · ');
  }
  return { task, ledger, checksum: file.modified ? 'edited' : 'verified' };
}
