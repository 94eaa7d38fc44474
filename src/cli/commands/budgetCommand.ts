// `capsule budget <session.jsonl>`: the chat's /budget figures for a session file, from the same function as the chat's meter.
import { DEFAULT_SYSTEM_PROMPT } from '../../engine/agent/systemPrompt.js';
import { formatBudget } from '../../engine/tokens/budgetFormat.js';
import { TokenCaches } from '../../node/sessionBudget.js';
import { ChatReading } from '../../node/chatReading.js';
import { formatTokens } from '../../engine/tokens/budgetFormat.js';
import type { Entry } from '../../engine/transcript/schema.js';
import { resolve } from 'node:path';
import type { ParsedCli } from '../args.js';
import { chatToolSchemas, CLI_PROVIDER, cliSettings, loadSessionForReading, modelFromFlags } from '../session.js';
import { settingsFlags } from '../settingsFlags.js';
import { BUDGET_USAGE } from '../usage.js';
import { windowSourceOf } from '../windowSource.js';
import { budgetMcp } from '../budgetMcp.js';
import { subagentLines } from '../../engine/agent/subagentResult.js';
import type { ModelInfo } from '../../engine/tokens/modelLimits.js';
import { CountsFile } from '../../node/countsFile.js';

export { BUDGET_USAGE };

/** The provider's own count of the last request, when a reply reported one. */
function lastReported(branch: readonly Entry[]): { readonly promptTokens: number; readonly entryId: string; readonly model?: string } | undefined {
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    if (e?.type === 'capsule') return undefined; // the report describes an input the capsule has replaced
    if (e?.type === 'assistant' && e.usage !== undefined)
      return { promptTokens: e.usage.promptTokens, entryId: e.id, ...(e.model === undefined ? {} : { model: e.model }) };
  }
  return undefined;
}

/** The window and where it came from: a user setting, the session's record, a server's statement (which one), or the table. */
async function windowLine(model: ModelInfo): Promise<string> {
  const n = `${formatTokens(model.contextWindow)} tokens`;
  if (model.source !== 'provider') return `${n} (${model.source === 'default' ? 'unknown, assumed' : model.source})`;
  // Loaded only here: the window query module brings the OpenAI client, which a budget otherwise never needs.
  const { SERVER_WINDOW_SOURCE_TEXT, ServerWindowsFile, serverWindowsPath } = await import('../../node/providers/windowQuery.js');
  const stated = await new ServerWindowsFile(serverWindowsPath()).sourceOf(model.model, model.contextWindow);
  return `${n} (provider${stated === undefined ? ', as the session recorded it' : `: stated by ${SERVER_WINDOW_SOURCE_TEXT[stated]}`})`;
}

export async function budgetCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  // Read-only, through the facade of a chat without a model: no lock, no writer, the meter's own figures.
  const chat = new ChatReading(await loadSessionForReading(cli.positionals[0], BUDGET_USAGE));
  const branch = chat.branch();
  const model = modelFromFlags(cli.flags, branch);
  const resolved = cliSettings(model, settingsFlags(cli.flags).compaction);
  // The tool schemas and provider label chat sends, so the count matches and calibration can use the provider's figure.
  const tools = chatToolSchemas(model, resolved);
  // Counted once (docs/behaviour.md#counted-once): what the session's sidecar has is not tokenized again, and what
  // this run counts is kept there, so the next budget builds no tokenizer at all.
  const counts = await CountsFile.load(resolve(cli.positionals[0] ?? ''), chat.header?.id ?? '');
  const cache = new TokenCaches({ counts }).forModel(model.model);
  const budget = chat.budget({ model, provider: CLI_PROVIDER, tools, resolved, cache, system: DEFAULT_SYSTEM_PROMPT }, Date.now());
  await counts.flush();
  const reported = lastReported(branch);
  const source = await windowSourceOf(cli.flags, branch, model);
  const subagents = chat.subagentRuns();
  const mcp = await budgetMcp(chat.header?.cwd ?? process.cwd());
  if (cli.flags.json === true) {
    out(
      JSON.stringify(
        {
          ...budget,
          subagents,
          mcp: { measured: mcp.measured, configured: mcp.configured },
          modelSource: model.source,
          windowSource: source,
          providerReported: reported ?? null,
          problems: chat.problems.length,
          warning: resolved.warning ?? null,
        },
        null,
        2,
      ),
    );
  } else {
    out(formatBudget(budget));
    out(`  Context window:      ${await windowLine(model)}`);
    out(`  Window source:       ${source.text}`);
    for (const line of subagentLines(subagents)) out(line);
    out(mcp.line);
    if (reported !== undefined)
      out(`  Provider reported:   ${formatTokens(reported.promptTokens)} prompt tokens for the last request (provider_usage, reply ${reported.entryId})`);
    if (resolved.warning) out(`Warning: ${resolved.warning}`);
    if (chat.problems.length > 0) out(`Note: ${chat.problems.length} problem(s) while loading; run 'capsule verify' for details.`);
  }
  return 0;
}
