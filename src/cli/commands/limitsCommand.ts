// `capsule limits [forget …]`: the context windows learned from providers' overflow errors, listed and forgotten.
import { cliLimitsPath, LearnedLimitsFile, learnedOn, type LearnedLimit } from '../../node/learnedLimits.js';
import { CliError, type ParsedCli } from '../args.js';
import { LIMITS_USAGE } from '../usage.js';

export { LIMITS_USAGE };

function describe(e: LearnedLimit): string {
  const output = e.maxOutputTokens === undefined ? '' : `, max output ${e.maxOutputTokens.toLocaleString('en-US')}`;
  return `${e.endpoint}  ${e.model}  window ${e.contextWindow.toLocaleString('en-US')} tokens${output} · learned from an overflow error${learnedOn(e)}`;
}

async function forget(cli: ParsedCli, file: LearnedLimitsFile, out: (s: string) => void): Promise<number> {
  const [endpoint, model, extra] = cli.positionals.slice(1);
  const all = cli.flags.all === true;
  if (extra !== undefined) throw new CliError(`unexpected argument '${extra}': ${LIMITS_USAGE}`);
  if (all === (endpoint !== undefined)) throw new CliError(`give an endpoint and a model, or --all: ${LIMITS_USAGE}`);
  if (!all && (model === undefined || model.trim() === '')) throw new CliError(`missing model after the endpoint: ${LIMITS_USAGE}`);
  let dropped: readonly LearnedLimit[];
  try {
    dropped = await file.forget(all ? 'all' : { endpoint: endpoint ?? '', model: model ?? '' });
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e), 1);
  }
  if (cli.flags.json === true) {
    out(JSON.stringify({ path: file.path, forgotten: dropped }, null, 2));
    return !all && dropped.length === 0 ? 1 : 0;
  }
  if (!all && dropped.length === 0)
    throw new CliError(`no window learned for ${model ?? ''} at ${endpoint ?? ''} in ${file.path} (run 'capsule limits' for the list)`, 1);
  if (dropped.length === 0) out(`No learned windows in ${file.path}; nothing to forget.`);
  for (const d of dropped) out(`Forgot ${describe(d)}.`);
  if (dropped.length > 0)
    out('The next chat with that model starts from --window, the provider or the model table again, and learns anew if the provider refuses a request.');
  return 0;
}

export async function limitsCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const file = new LearnedLimitsFile(cliLimitsPath());
  const action = cli.positionals[0];
  if (action === 'forget') return forget(cli, file, out);
  if (action !== undefined) throw new CliError(`unknown limits action '${action}': ${LIMITS_USAGE}`);
  if (cli.flags.all === true) throw new CliError(`--all goes with 'forget': ${LIMITS_USAGE}`);
  const { limits, problem } = await file.list();
  if (cli.flags.json === true) {
    out(JSON.stringify({ path: file.path, limits, problem: problem ?? null }, null, 2));
    return 0;
  }
  if (problem !== undefined) out(`Warning: ${problem}`);
  if (limits.length === 0) {
    out(`No learned windows in ${file.path}.`);
    return 0;
  }
  out(
    `Windows learned from providers' overflow errors (${file.path}); each is used by every later chat with that endpoint and model unless --window is given:`,
  );
  for (const e of limits) out(`  ${describe(e)}`);
  out(`Forget one: capsule limits forget <endpoint> <model>; all: capsule limits forget --all`);
  return 0;
}
