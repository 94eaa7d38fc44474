// `capsule rewind <session.jsonl> ck_…`: moves the session's active leaf back to a checkpoint, as the chat's Rewind does.
import { CliError, type ParsedCli } from '../args.js';
import { chatToolSchemas, CLI_PROVIDER, cliSettings, openOffline } from '../session.js';
import { settingsFlags } from '../settingsFlags.js';

export const REWIND_USAGE = 'capsule rewind <session.jsonl> ck_… [--window N] [--max-output N] [--set k=v]… [--no-auto-compact] [--json]';

export async function rewindCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const [path, checkpointId] = cli.positionals;
  if (!path) throw new CliError(`missing session file: ${REWIND_USAGE}`);
  if (!checkpointId) throw new CliError(`missing checkpoint id: ${REWIND_USAGE}`);
  if (!/^ck_[A-Za-z0-9_-]+$/.test(checkpointId)) throw new CliError(`'${checkpointId}' is not a checkpoint id (they look like ck_…): ${REWIND_USAGE}`);
  // No model is called, but the budget line printed after the move (and the tool schemas it counts) follows the settings.
  const raw = settingsFlags(cli.flags).compaction;
  const session = await openOffline(path, (info) => { const resolved = cliSettings(info, raw); return { model: info, provider: CLI_PROVIDER, resolved, tools: chatToolSchemas(process.cwd(), info, resolved) }; }, cli.flags);
  try {
    const r = await session.rewind(checkpointId);
    if (!r.ok) throw new CliError(r.error.replace('this chat', path), 1);
    const budget = session.budget();
    if (cli.flags.json === true) {
      out(JSON.stringify({ session: path, checkpointId, leafEntryId: r.leaf.id, targetId: r.leaf.targetId, tokens: budget.effectiveTokens, hardLimit: budget.hardLimit }, null, 2));
    } else {
      out(`Rewound ${path} to ${checkpointId}: the session continues from there on a new branch (${budget.effectiveTokens} tokens of ${budget.hardLimit}); later entries stay in the file.`);
    }
    return 0;
  } finally {
    await session.close();
  }
}
