// `capsule show <session.jsonl>`: prints the capsule in force on the active branch, or the one made at a checkpoint.
import { groupDigits } from '../../engine/compaction/flightRecord.js';
import { RETENTION_CATEGORIES, retentionFromDetails, retentionLine, type Retention } from '../../engine/compaction/retention.js';
import { latestCapsule } from '../../engine/transcript/modelInput.js';
import type { CapsuleEntry } from '../../engine/transcript/schema.js';
import type { SessionTree } from '../../engine/transcript/tree.js';
import { CliError, type ParsedCli } from '../args.js';
import { loadSessionForReading } from '../session.js';
import { SHOW_USAGE } from '../usage.js';

export { SHOW_USAGE };

/** The capsule made at `checkpointId`, on any branch (the newest, should a checkpoint id ever repeat). */
function capsuleAt(tree: SessionTree, checkpointId: string, path: string): CapsuleEntry {
  const found = tree
    .entries()
    .filter((e): e is CapsuleEntry => e.type === 'capsule' && e.checkpointId === checkpointId)
    .pop();
  if (found) return found;
  const marked = tree.entries().some((e) => e.type === 'checkpoint' && e.checkpointId === checkpointId);
  throw new CliError(
    marked
      ? `checkpoint ${checkpointId} has no capsule (a milestone or user checkpoint, or a compaction that did not complete)`
      : `no checkpoint ${checkpointId} in ${path}`,
    1,
  );
}

function headerOf(c: CapsuleEntry): string {
  const level = c.level > 0 ? ` level ${c.level}` : '';
  const parts = [
    `Capsule ${c.id}`,
    c.checkpointId,
    `${c.trigger}${level}`,
    c.quality,
    `${groupDigits(c.tokensBefore)} → ${groupDigits(c.tokensAfter)} tokens`,
    c.timestamp,
  ];
  const fallback = typeof c.details.fallbackReason === 'string' ? `\nFallback used: ${c.details.fallbackReason}` : '';
  return `${parts.join(' · ')}${fallback}`;
}

function retentionReportText(checkpointId: string, r: Retention): string {
  const lines = [`Retention of ${checkpointId}: ${retentionLine(r)}`];
  if (r.appended > 0) lines.push(`${r.appended} lost file(s)/command(s) were appended to the capsule from the transcript.`);
  for (const k of RETENTION_CATEGORIES) {
    const c = r[k];
    if (c.dropped.length === 0) continue;
    const more = c.total - c.kept - c.dropped.length;
    lines.push(
      '',
      `Dropped ${k} (${c.total - c.kept} of ${c.total}):`,
      ...c.dropped.map((d) => `  - ${d.replace(/\r?\n/g, ' ⏎ ')}`),
      ...(more > 0 ? [`  - ... and ${more} more`] : []),
    );
  }
  return lines.join('\n');
}

export async function showCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const path = cli.positionals[0];
  const load = await loadSessionForReading(path, SHOW_USAGE);
  const wanted = cli.flags.checkpoint;
  if (wanted === true || wanted === '') throw new CliError('--checkpoint needs a checkpoint id such as ck_abc');
  let capsule: CapsuleEntry;
  if (typeof wanted === 'string') capsule = capsuleAt(load.tree, wanted.trim(), path ?? '');
  else {
    const found = latestCapsule(load.tree.branch());
    if (!found) throw new CliError(`no capsule on the active branch of ${path ?? ''}; run 'capsule compact' first`, 1);
    capsule = found.capsule;
  }
  if (cli.flags.retention === true) {
    const r = retentionFromDetails(capsule.details);
    if (!r) throw new CliError(`capsule ${capsule.checkpointId} has no retention report (it was made before Capsule measured retention)`, 1);
    if (cli.flags.json === true) out(JSON.stringify(r, null, 2));
    else out(retentionReportText(capsule.checkpointId, r));
    return 0;
  }
  if (cli.flags.json === true) out(JSON.stringify(capsule, null, 2));
  else out(`${headerOf(capsule)}\n\n${capsule.summary.trimEnd()}`);
  return 0;
}
