// `capsule rewind <session.jsonl> <ck_…|entry> [--files|--files-only]`: the chat's Rewind from the command line, conversation and/or files; refused records and kept copies are named.
import type { RewindDone, RewindPreview } from '../../node/sessionRewind.js';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { printable, type RefusedRecord } from '../../node/snapshots/changeLog.js';
import type { FilePlan, RestoreResult } from '../../node/snapshots/restore.js';
import { CliError, type ParsedCli } from '../args.js';
import { chatToolSchemas, CLI_PROVIDER, cliSettings } from '../session.js';
import { openOffline } from '../offline.js';
import { settingsFlags } from '../settingsFlags.js';
import { REWIND_USAGE } from '../usage.js';

export { REWIND_USAGE };

/** How many refused records a listing names before it only counts the rest. */
const SHOWN_REFUSED = 20;

function fileLine(f: FilePlan): string {
  const what = f.action === 'delete' ? 'delete (created later)' : f.action === 'recreate' ? 'recreate (deleted later)' : 'restore';
  const changed = !f.editedOutside
    ? undefined
    : f.unknownContent === true
      ? 'changed since: Capsule did not keep its last content, so it cannot tell whether it was edited (kept unless --force)'
      : 'edited outside Capsule since (kept unless --force)';
  const flags = [changed, f.unavailable === undefined ? undefined : `cannot be restored: ${f.unavailable}`].filter((x) => x !== undefined);
  return `  ${what} ${printable(f.path)}${flags.length > 0 ? ` — ${flags.join('; ')}` : ''}`;
}

function refusedLines(refused: readonly RefusedRecord[]): string[] {
  const lines = refused.slice(0, SHOWN_REFUSED).map((r) => `  refused ${printable(r.path)} — ${r.reason}`);
  if (refused.length > SHOWN_REFUSED) lines.push(`  … and ${refused.length - SHOWN_REFUSED} more refused`);
  return lines;
}

function filesSummary(files: RestoreResult): string {
  const parts = [`${files.restored.length} restored${files.kept.length > 0 ? ` (${files.kept.length} overwritten after keeping your version)` : ''}`];
  if (files.skipped.length > 0) parts.push(`${files.skipped.length} left as they are`);
  if (files.refused.length > 0) parts.push(`${files.refused.length} refused`);
  return `Files: ${parts.join(', ')}.`;
}

function report(done: RewindDone | RewindPreview, path: string, tokens: number, hardLimit: number, snapshotsDir: string): string[] {
  const p = done.point;
  const lines: string[] = [];
  if ('mode' in done) {
    const to = p.checkpointId ?? p.targetId ?? 'the start';
    if (done.mode !== 'files')
      lines.push(
        `Rewound ${path} to ${to}: the session continues from there on a new branch (${tokens} tokens of ${hardLimit}); later entries stay in the file.`,
      );
    if (done.files !== undefined) {
      lines.push(filesSummary(done.files));
      for (const k of done.files.kept) lines.push(`  overwrote ${printable(k.path)} — your version was kept at ${printable(k.copy)}`);
      for (const s of done.files.skipped) lines.push(`  kept ${printable(s.path)} — ${s.reason}`);
      lines.push(...refusedLines(done.files.refused));
      if (done.files.skipped.some((s) => s.reason.startsWith('changed since')))
        lines.push(`Run again with --force to overwrite the files changed since; each is first copied to ${printable(join(snapshotsDir, 'kept'))}/<time>/.`);
    }
    if (done.note !== undefined) lines.push(`The files were not restored; the next request tells the model which files differ from that point.`);
  } else {
    lines.push(`Rewinding ${path} to ${p.checkpointId ?? p.targetId ?? 'the start'} would leave ${tokens} tokens of ${hardLimit}.`);
    lines.push(done.files.length === 0 ? 'No files differ from that point.' : `Files that differ from that point (${done.files.length}):`);
    for (const f of done.files) lines.push(fileLine(f));
    if (done.refused.length > 0) {
      lines.push(`Warning: ${done.refused.length} change-log record${done.refused.length === 1 ? ' is' : 's are'} refused and would not be applied:`);
      lines.push(...refusedLines(done.refused));
    }
  }
  if (p.message !== undefined)
    lines.push(`The message sent there was: ${JSON.stringify(p.message.text.length > 200 ? `${p.message.text.slice(0, 200)}…` : p.message.text)}`);
  return lines;
}

/** The folders whose files a rewind may touch: --workspace, else the one the chat was started in (its header). */
function rootsFlag(cli: ParsedCli): readonly string[] | undefined {
  const w = cli.flags.workspace;
  if (typeof w !== 'string') return undefined;
  const dir = resolve(w);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliError(`--workspace ${dir}: not a folder`);
  return [dir];
}

export async function rewindCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const [path, ref] = cli.positionals;
  if (!path) throw new CliError(`missing session file: ${REWIND_USAGE}`);
  if (!ref) throw new CliError(`missing checkpoint or entry id: ${REWIND_USAGE}`);
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(ref)) throw new CliError(`'${ref}' is not a checkpoint id (ck_…) or an entry id: ${REWIND_USAGE}`);
  if (cli.flags.files === true && cli.flags['files-only'] === true) throw new CliError(`--files and --files-only exclude each other: ${REWIND_USAGE}`);
  const mode = cli.flags['files-only'] === true ? 'files' : cli.flags.files === true ? 'both' : 'conversation';
  // No model is called, but the budget line printed after the move (and the tool schemas it counts) follows the settings.
  const raw = settingsFlags(cli.flags).compaction;
  const roots = rootsFlag(cli);
  const session = await openOffline(
    path,
    (info) => {
      const resolved = cliSettings(info, raw);
      return { model: info, provider: CLI_PROVIDER, resolved, tools: chatToolSchemas(info, resolved) };
    },
    cli.flags,
    roots === undefined ? {} : { roots },
  );
  try {
    const preview = await session.previewRewind(ref);
    if (!preview.ok) throw new CliError(preview.error.replace('this chat', path), 1);
    const target = preview.point.targetId === null ? [] : session.branch(preview.point.targetId);
    if (cli.flags['dry-run'] === true) {
      const b = session.budget();
      const at = target.length === 0 ? { effectiveTokens: 0, hardLimit: b.hardLimit } : session.budgetOf(target);
      if (cli.flags.json === true)
        out(
          JSON.stringify(
            { session: path, ref, ...preview.point, files: preview.files, refused: preview.refused, tokens: at.effectiveTokens, hardLimit: at.hardLimit },
            null,
            2,
          ),
        );
      else out(report(preview, path, at.effectiveTokens, at.hardLimit, dirname(session.snapshots.log.file)).join('\n'));
      return 0;
    }
    const r = await session.rewind(ref, { mode, overwriteOutside: cli.flags.force === true });
    if (!r.ok) throw new CliError(r.error.replace('this chat', path), 1);
    const budget = session.budget();
    if (cli.flags.json === true) {
      out(
        JSON.stringify(
          {
            session: path,
            ref,
            mode,
            checkpointId: r.point.checkpointId,
            leafEntryId: r.leaf?.id,
            targetId: r.point.targetId,
            message: r.point.message?.text,
            files: r.files,
            tokens: budget.effectiveTokens,
            hardLimit: budget.hardLimit,
          },
          null,
          2,
        ),
      );
    } else out(report(r, path, budget.effectiveTokens, budget.hardLimit, dirname(session.snapshots.log.file)).join('\n'));
    // Files left alone (changed since, not restorable, refused) are an incomplete rewind: say so in the exit status too.
    return r.files !== undefined && (r.files.skipped.length > 0 || r.files.refused.length > 0) ? 3 : 0;
  } finally {
    await session.close();
  }
}
