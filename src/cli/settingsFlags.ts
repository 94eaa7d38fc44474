// `--set <setting>=<value>` (repeatable) and `--no-auto-compact`, checked by the same schema as the extension's settings.
import { checkSetting } from '../engine/config.js';
import { compileTestPatterns } from '../engine/effects/testRunners.js';
import { SUBAGENT_SETTING_SCHEMAS } from '../engine/subagentSettings.js';
import { CliError, type Flags } from './args.js';

export interface CliSettings {
  /** Raw `capsule.compaction.*` values, as the extension would read them. */
  readonly compaction: Readonly<Record<string, unknown>>;
  /** `capsule.agent.*` values. */
  readonly agent: { readonly maxRequestsPerTurn?: number };
  /** `capsule.ledger.testCommands`: a JSON array sets the list, a plain pattern adds one (the flag repeats). */
  readonly testCommands?: readonly string[];
  /** `capsule.subagents.*` values (docs/subagents.md). */
  readonly subagents: Readonly<Record<string, unknown>>;
}

/** `capsule.subagents.<key>=<value>`, checked by the schema the facade uses; a one-line error otherwise. */
function subagentSetting(key: string, value: unknown): unknown {
  const schema = Object.hasOwn(SUBAGENT_SETTING_SCHEMAS, key) ? SUBAGENT_SETTING_SCHEMAS[key as keyof typeof SUBAGENT_SETTING_SCHEMAS] : undefined;
  if (schema === undefined)
    throw new CliError(
      `--set: unknown setting 'capsule.subagents.${key}' (known: ${Object.keys(SUBAGENT_SETTING_SCHEMAS)
        .map((k) => `subagents.${k}`)
        .join(', ')})`,
    );
  const parsed = schema.safeParse(key === 'model' ? String(value) : value);
  if (!parsed.success)
    throw new CliError(`--set: capsule.subagents.${key} (${JSON.stringify(value)}) is invalid: ${parsed.error.issues[0]?.message ?? 'bad value'}`);
  return parsed.data;
}

/** `true`, `12000`, `0.5` are JSON; anything else is the string as written. */
function valueOf(text: string): unknown {
  const t = text.trim();
  if (t === '') return t;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return t;
  }
}

type Section = 'compaction' | 'agent' | 'ledger';

/** `capsule.compaction.keepRecentTokens`, `compaction.keepRecentTokens` or just `keepRecentTokens`. */
function keyOf(raw: string): { section: Section; key: string } {
  const parts = raw
    .trim()
    .replace(/^capsule\./, '')
    .split('.');
  if (parts.length === 1)
    return { section: parts[0] === 'maxRequestsPerTurn' ? 'agent' : parts[0] === 'testCommands' ? 'ledger' : 'compaction', key: parts[0] ?? '' };
  const [section = '', key = '', ...rest] = parts;
  if ((section !== 'compaction' && section !== 'agent' && section !== 'ledger') || rest.length > 0) {
    throw new CliError(`unknown setting '${raw}' (use capsule.compaction.<key>, capsule.agent.<key> or capsule.ledger.testCommands)`);
  }
  return { section, key };
}

/** A JSON array of patterns replaces the list; anything else is one pattern, added (so `--set` may repeat). */
function testCommandsOf(text: string, list: readonly string[]): string[] {
  const value = valueOf(text);
  const given = Array.isArray(value) ? value : [text.trim()];
  if (!given.every((p): p is string => typeof p === 'string' && p.trim() !== '')) {
    throw new CliError(`--set: capsule.ledger.testCommands takes a regular expression or a JSON array of them (got ${JSON.stringify(value)})`);
  }
  const error = compileTestPatterns(given).errors[0];
  if (error !== undefined) throw new CliError(`--set: capsule.ledger.${error}`);
  return Array.isArray(value) ? given : [...list, ...given];
}

export function settingsFlags(flags: Flags): CliSettings {
  const compaction: Record<string, unknown> = {};
  const agent: { maxRequestsPerTurn?: number } = {};
  let testCommands: string[] | undefined;
  const subagents: Record<string, unknown> = {};
  const sets = flags.set;
  const list = sets === undefined ? [] : Array.isArray(sets) ? sets : [String(sets)];
  for (const item of list) {
    const at = item.indexOf('=');
    if (at <= 0) throw new CliError(`--set needs <setting>=<value> (got '${item}'), e.g. --set capsule.compaction.keepRecentTokens=8000`);
    const name = item
      .slice(0, at)
      .trim()
      .replace(/^capsule\./, '');
    if (name.startsWith('subagents.')) {
      const key = name.slice('subagents.'.length);
      subagents[key] = subagentSetting(key, valueOf(item.slice(at + 1)));
      continue;
    }
    const { section, key } = keyOf(item.slice(0, at));
    if (section === 'ledger') {
      if (key !== 'testCommands') throw new CliError(`unknown setting '${item.slice(0, at)}' (the ledger has one setting: capsule.ledger.testCommands)`);
      testCommands = testCommandsOf(item.slice(at + 1), testCommands ?? []);
      continue;
    }
    const checked = checkSetting(section, key, valueOf(item.slice(at + 1)));
    if (!checked.ok) throw new CliError(`--set: ${checked.error}`);
    if (section === 'agent') agent.maxRequestsPerTurn = Number(checked.value);
    else compaction[key] = checked.value;
  }
  if (flags['no-auto-compact'] === true) compaction.auto = false;
  return { compaction, agent, subagents, ...(testCommands === undefined ? {} : { testCommands }) };
}
