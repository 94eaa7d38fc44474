// capsule.subagents.* are contributed with the code's defaults and ranges, and a bad value falls back alone with a one-line reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SUBAGENT_SETTINGS, resolveSubagentSettings, SUBAGENT_SETTING_SCHEMAS, type SubagentSettings } from '../../../src/engine/subagentSettings.js';

interface Prop {
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly markdownDescription?: string;
}
const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Prop> }[] };
};
const props: Record<string, Prop> = Object.assign({}, ...manifest.contributes.configuration.map((g) => g.properties));

test('capsule.subagents settings are contributed with the code defaults and ranges', () => {
  for (const key of Object.keys(SUBAGENT_SETTING_SCHEMAS) as (keyof SubagentSettings)[]) {
    const p = props[`capsule.subagents.${key}`];
    assert.ok(p, `capsule.subagents.${key} is not contributed`);
    assert.deepEqual(p.default, DEFAULT_SUBAGENT_SETTINGS[key]);
    assert.ok((p.markdownDescription ?? '').length > 20);
    const schema = SUBAGENT_SETTING_SCHEMAS[key];
    if (p.minimum !== undefined) assert.ok(schema.safeParse(p.minimum).success && !schema.safeParse(p.minimum - 1).success);
    if (p.maximum !== undefined) assert.ok(schema.safeParse(p.maximum).success && !schema.safeParse(p.maximum + 1).success);
  }
  const contributed = Object.keys(props).filter((k) => k.startsWith('capsule.subagents.'));
  assert.deepEqual(
    contributed.sort(),
    Object.keys(SUBAGENT_SETTING_SCHEMAS)
      .map((k) => `capsule.subagents.${k}`)
      .sort(),
  );
});

test('a bad value falls back to its default alone, named in a one-line error', () => {
  const r = resolveSubagentSettings({ maxConcurrent: 0, maxRequests: 7 });
  assert.deepEqual(r.settings, { model: '', maxConcurrent: 3, maxRequests: 7 });
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0] ?? '', /^capsule\.subagents\.maxConcurrent \(0\) is invalid: .*; using 3$/);
});
