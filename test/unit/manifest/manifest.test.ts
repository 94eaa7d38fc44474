// package.json against the code: settings defaults and ranges, command and view ids both ways, engines, activation.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  AGENT_SETTING_SCHEMAS,
  type AgentSettingKey,
  checkSetting,
  DEFAULT_AGENT_SETTINGS,
  DEFAULT_COMPACTION_SETTINGS,
  SETTING_KEYS,
  resolveSettings,
} from '../../../src/engine/config.js';
import { DEFAULT_AGENT_OPTIONS } from '../../../src/engine/agent/turnRequest.js';
import { COMMANDS, PALETTE_COMMAND_IDS, type CommandSpec } from '../../../src/protocol/commands.js';

const ROOT = join(__dirname, '..', '..', '..');

interface ConfigProperty {
  readonly type?: string | readonly string[];
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly markdownDescription?: string;
  readonly description?: string;
  readonly deprecationMessage?: string;
}
interface Manifest {
  readonly engines: { readonly vscode: string };
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly activationEvents?: readonly string[];
  readonly main?: string;
  readonly contributes: {
    readonly commands?: readonly { readonly command: string; readonly title: string; readonly category?: string; readonly icon?: string }[];
    readonly views?: Readonly<Record<string, readonly { readonly id: string; readonly name: string; readonly type?: string }[]>>;
    readonly viewsContainers?: { readonly activitybar?: readonly { readonly id: string; readonly title: string; readonly icon: string }[] };
    readonly menus?: Readonly<Record<string, readonly { readonly command: string }[]>>;
    readonly configuration?:
      | { readonly properties: Readonly<Record<string, ConfigProperty>> }
      | readonly { readonly properties: Readonly<Record<string, ConfigProperty>> }[];
  };
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

function properties(m: Manifest): Record<string, ConfigProperty> {
  const c = m.contributes.configuration;
  const sections = c === undefined ? [] : Array.isArray(c) ? c : [c];
  const out: Record<string, ConfigProperty> = {};
  for (const s of sections as readonly { readonly properties: Readonly<Record<string, ConfigProperty>> }[]) Object.assign(out, s.properties);
  return out;
}
const props = properties(manifest);
const PREFIX = 'capsule.compaction.';
const DEPRECATED = new Set(['backgroundTimeoutMs']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** `'capsule.x'` literals passed as the first argument of the given VS Code API calls, across src/. */
function idsPassedTo(fns: readonly string[], text: string): Set<string> {
  const re = new RegExp(`\\b(?:${fns.join('|')})\\(\\s*['"\`](capsule\\.[\\w.-]+)['"\`]`, 'g');
  return new Set([...text.matchAll(re)].map((m) => m[1] ?? ''));
}
const srcText = sourceFiles(join(ROOT, 'src'))
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

test('every compaction setting of the code is contributed with the same default', () => {
  for (const key of SETTING_KEYS) {
    const p = props[PREFIX + key];
    assert.ok(p, `${PREFIX}${key} is not contributed`);
    assert.deepEqual(p.default, DEFAULT_COMPACTION_SETTINGS[key], `default of ${PREFIX}${key}`);
    assert.ok((p.markdownDescription ?? p.description ?? '').length > 20, `${PREFIX}${key} needs a description`);
  }
});

test('nothing unknown is contributed under capsule.compaction', () => {
  const known = new Set<string>([...SETTING_KEYS, ...DEPRECATED]);
  for (const full of Object.keys(props).filter((k) => k.startsWith(PREFIX))) {
    assert.ok(known.has(full.slice(PREFIX.length)), `${full} is contributed but the code does not know it`);
  }
});

test('the deprecated backgroundTimeoutMs alias has no default and points to timeoutMs', () => {
  const p = props[`${PREFIX}backgroundTimeoutMs`];
  assert.ok(p);
  assert.equal(p.default, undefined);
  assert.match(p.deprecationMessage ?? '', /timeoutMs/);
  const t = props[`${PREFIX}timeoutMs`];
  assert.equal(p.minimum, t?.minimum);
  assert.equal(p.maximum, t?.maximum);
});

test('contributed ranges agree with the code: the bounds are valid, one step past them is rejected', () => {
  for (const key of SETTING_KEYS) {
    const p = props[PREFIX + key];
    assert.ok(p);
    if (p.type !== 'number' && p.type !== 'integer') continue;
    const step = p.type === 'integer' ? 1 : 0.001;
    const check = (value: number, valid: boolean, why: string): void => {
      const r = resolveSettings({ raw: { [key]: value } });
      const flagged = r.errors.some((e) => e.startsWith(`${key} (`));
      assert.equal(flagged, !valid, `${key}=${value} (${why}) should be ${valid ? 'accepted' : 'rejected'} by config.ts`);
    };
    if (p.minimum !== undefined) {
      check(p.minimum, true, 'minimum');
      check(p.minimum - step, false, 'below minimum');
    }
    if (p.exclusiveMinimum !== undefined) {
      check(p.exclusiveMinimum, false, 'exclusive minimum');
      check(p.exclusiveMinimum + step, true, 'just above exclusive minimum');
    }
    assert.ok(p.maximum !== undefined, `${key} needs a maximum`);
    check(p.maximum, true, 'maximum');
    check(p.maximum + step, false, 'above maximum');
    if (p.type === 'integer') check((p.minimum ?? p.exclusiveMinimum ?? 0) + 1.5, false, 'fraction for an integer');
  }
});

test('model and provider settings are contributed with their defaults', () => {
  assert.equal(props['capsule.model.id']?.default, 'gpt-4o');
  assert.equal(props['capsule.model.contextWindow']?.default, 0);
  assert.equal(props['capsule.model.maxOutputTokens']?.default, 0);
  assert.equal(props['capsule.provider.baseUrl']?.default, '');
  assert.equal(props['capsule.provider.sendCacheKey']?.default, true);
});

test('every command id used in src/ is contributed, and every contributed command is registered', () => {
  const contributed = new Set((manifest.contributes.commands ?? []).map((c) => c.command));
  // The catalog's palette commands are registered in one loop (src/vscode/commands/registerCommands.ts); the rest by their literal id.
  const catalog = PALETTE_COMMAND_IDS.map((id) => COMMANDS[id].palette.id);
  const registered = new Set([...idsPassedTo(['registerCommand'], srcText), ...catalog]);
  const used = new Set([...idsPassedTo(['registerCommand', 'executeCommand'], srcText), ...catalog]);
  assert.ok(registered.size >= 6, `found only ${registered.size} registered commands`);
  for (const id of used) assert.ok(contributed.has(id), `${id} is used in code but not contributed`);
  for (const id of contributed) assert.ok(registered.has(id), `${id} is contributed but never registered`);
  for (const c of manifest.contributes.commands ?? []) assert.equal(c.category, 'Capsule', `${c.command} category`);
});

test('the palette commands of the catalog are contributed with its title and icon', () => {
  const contributed = new Map((manifest.contributes.commands ?? []).map((c) => [c.command, c]));
  for (const id of PALETTE_COMMAND_IDS) {
    const spec: CommandSpec = COMMANDS[id];
    const c = contributed.get(spec.palette?.id ?? '');
    assert.ok(c, `${id}: ${spec.palette?.id} is not contributed`);
    assert.equal(c.title, spec.palette?.title, `${id}: title`);
    assert.equal(c.icon, spec.icon === undefined ? undefined : `$(${spec.icon})`, `${id}: icon`);
  }
});

test('every view id used in src/ is contributed, and every contributed view is registered', () => {
  const views = Object.values(manifest.contributes.views ?? {}).flat();
  const contributed = new Set(views.map((v) => v.id));
  const registered = idsPassedTo(['registerWebviewViewProvider', 'createTreeView', 'registerTreeDataProvider'], srcText);
  for (const id of registered) assert.ok(contributed.has(id), `${id} is registered but not contributed`);
  for (const id of contributed) assert.ok(registered.has(id), `view ${id} is contributed but never registered`);
  const webviews = idsPassedTo(['registerWebviewViewProvider'], srcText);
  for (const v of views) assert.equal(v.type === 'webview', webviews.has(v.id), `${v.id}: type and registration disagree`);
});

test('the activity bar container holds the chat and the checkpoints tree, with an icon that exists', () => {
  const container = manifest.contributes.viewsContainers?.activitybar?.find((c) => c.id === 'capsule');
  assert.ok(container);
  assert.ok(statSync(join(ROOT, container.icon)).isFile());
  const ids = (manifest.contributes.views?.capsule ?? []).map((v) => v.id);
  assert.deepEqual(ids, ['capsule.chat', 'capsule.checkpoints']);
});

test('menus only reference contributed commands', () => {
  const contributed = new Set((manifest.contributes.commands ?? []).map((c) => c.command));
  for (const [menu, items] of Object.entries(manifest.contributes.menus ?? {})) {
    for (const i of items) assert.ok(contributed.has(i.command), `${menu} references unknown ${i.command}`);
  }
});

test('engines.vscode is ^1.100.0, @types/vscode matches, and activation events are declared', () => {
  assert.equal(manifest.engines.vscode, '^1.100.0');
  assert.equal(manifest.devDependencies['@types/vscode'], manifest.engines.vscode);
  assert.ok((manifest.activationEvents ?? []).length > 0);
  assert.ok(manifest.activationEvents?.includes('onView:capsule.chat'));
  assert.equal(manifest.main, './dist/extension.js');
});

test('the id scanner finds literals and ignores other prefixes', () => {
  const ids = idsPassedTo(
    ['registerCommand', 'executeCommand'],
    `registerCommand('capsule.a', f); executeCommand( "capsule.b.c"); executeCommand('workbench.x')`,
  );
  assert.deepEqual([...ids].sort(), ['capsule.a', 'capsule.b.c']);
});

test('capsule.agent settings are contributed with the code defaults and ranges', () => {
  for (const key of Object.keys(AGENT_SETTING_SCHEMAS) as AgentSettingKey[]) {
    const p = props[`capsule.agent.${key}`];
    assert.ok(p, `capsule.agent.${key} is not contributed`);
    assert.equal(p.default, DEFAULT_AGENT_SETTINGS[key]);
    assert.ok((p.markdownDescription ?? '').length > 20);
    if (p.minimum !== undefined) assert.equal(checkSetting('agent', key, p.minimum).ok && !checkSetting('agent', key, p.minimum - 1).ok, true);
    if (p.maximum !== undefined) assert.equal(checkSetting('agent', key, p.maximum).ok && !checkSetting('agent', key, p.maximum + 1).ok, true);
  }
  assert.equal(DEFAULT_AGENT_OPTIONS.maxRequestsPerTurn, DEFAULT_AGENT_SETTINGS.maxRequestsPerTurn);
});

test('instruction and skill settings are contributed with the code defaults', async () => {
  const { INSTRUCTION_FAMILIES } = await import('../../../src/node/instructions/instructionFiles.js');
  const { DEFAULT_INSTRUCTION_SHARE } = await import('../../../src/node/instructions/instructionReport.js');
  const { DEFAULT_SKILL_RELOAD_TOKENS } = await import('../../../src/engine/agent/instructionSync.js');
  assert.deepEqual(props['capsule.instructions.families']?.default, [...INSTRUCTION_FAMILIES]);
  assert.equal(props['capsule.instructions.maxWindowShare']?.default, DEFAULT_INSTRUCTION_SHARE);
  assert.equal(props['capsule.skills.reloadBudgetTokens']?.default, DEFAULT_SKILL_RELOAD_TOKENS);
});
