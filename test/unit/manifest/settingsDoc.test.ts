// docs/settings.md is generated from package.json: every contributed setting is listed with its default, and the page is current.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const REPO = join(__dirname, '..', '..', '..');

interface Manifest {
  readonly contributes: { readonly configuration: readonly { readonly properties: Readonly<Record<string, { readonly default?: unknown }>> }[] };
}

test('docs/settings.md is exactly what scripts/settingsDoc.mjs makes of package.json', async () => {
  const mod = (await import(join(REPO, 'scripts', 'settingsDoc.mjs'))) as { settingsPage(pkg: unknown): string };
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Manifest;
  const page = readFileSync(join(REPO, 'docs', 'settings.md'), 'utf8');
  assert.equal(page, mod.settingsPage(pkg), 'docs/settings.md is out of date: run `node scripts/settingsDoc.mjs`');
  for (const group of pkg.contributes.configuration) {
    for (const [key, p] of Object.entries(group.properties)) {
      assert.ok(page.includes(`| \`${key}\` |`), `${key} is listed`);
      if (p.default !== undefined) assert.ok(page.includes(`\`${JSON.stringify(p.default)}\``), `${key} shows its default`);
    }
  }
});
