// The capsule.mcp.* settings: package.json declares the code's defaults and ranges; bad values keep their default and are named; the CLI's --set capsule.mcp.* is split off.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_MCP_SETTINGS, resolveMcpSettings } from '../../../src/node/mcp/mcpSettings.js';
import { splitMcpSets } from '../../../src/cli/mcpSetup.js';
import { ROOT } from './mcpRig.js';

interface Prop {
  readonly default?: unknown;
  readonly scope?: string;
}

test('every capsule.mcp setting of the code is contributed with the same default; servers are user-only', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, Prop> }[] } };
  const props: Record<string, Prop> = Object.assign({}, ...pkg.contributes.configuration.map((g) => g.properties));
  for (const [k, v] of Object.entries(DEFAULT_MCP_SETTINGS)) assert.deepEqual(props[`capsule.mcp.${k}`]?.default, v, `capsule.mcp.${k}`);
  assert.deepEqual(props['capsule.mcp.servers']?.default, {});
  assert.equal(props['capsule.mcp.servers']?.scope, 'application', 'a workspace cannot define servers through settings');
  assert.deepEqual(props['capsule.approvals.allowedMcpTools']?.default, []);
  assert.equal(props['capsule.approvals.allowedMcpTools']?.scope, 'application', 'a workspace cannot allow its own tools through settings');
});

test('bad values keep their default and are named; unknown keys are named', () => {
  const r = resolveMcpSettings({ deferShare: 2, autoAllowReadOnly: true, bogus: 1 });
  assert.equal(r.settings.deferShare, DEFAULT_MCP_SETTINGS.deferShare);
  assert.equal(r.settings.autoAllowReadOnly, true);
  assert.equal(r.problems.length, 2);
  assert.match(r.problems[0] ?? '', /capsule\.mcp\.deferShare: .*the default 0\.1 is used/);
  assert.match(r.problems[1] ?? '', /unknown setting capsule\.mcp\.bogus/);
});

test('--set capsule.mcp.* is split from the other settings', () => {
  const { rest, raw } = splitMcpSets({ set: ['capsule.mcp.deferShare=0.5', 'keepRecentTokens=8000', 'mcp.autoAllowReadOnly=true'], yes: true });
  assert.deepEqual(raw, { deferShare: 0.5, autoAllowReadOnly: true });
  assert.deepEqual(rest, { set: ['keepRecentTokens=8000'], yes: true });
});
