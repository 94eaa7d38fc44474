// Writes docs/settings.md from package.json's contributed settings (`node scripts/settingsDoc.mjs`); a unit test checks the page is current.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

function cell(text) {
  return String(text)
    .replace(/\|/g, '\\|')
    .replace(/\r?\n+/g, ' ');
}

function value(v) {
  return v === undefined ? '' : `\`${JSON.stringify(v)}\``;
}

/** The page for a package.json object: one table per settings group, in the manifest's order. */
export function settingsPage(pkg) {
  const groups = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
  const out = [
    '# Settings reference',
    '',
    '<!-- Generated from package.json by `node scripts/settingsDoc.mjs`; test/unit/manifest/settingsDoc.test.ts fails when it is out of date. -->',
    '',
    'Open them with **Preferences: Open Settings** and search for `capsule`. Compaction settings left unset are derived',
    "from the model's context window (see [Compaction and capsules](user/compaction.md)).",
  ];
  for (const g of groups) {
    out.push('', `## ${g.title}`, '', '| Setting | Type | Default | What it does |', '|---|---|---|---|');
    for (const [key, p] of Object.entries(g.properties)) {
      const type = p.enum ? p.enum.map((e) => `\`${e}\``).join(' / ') : (p.type ?? '');
      const text = (p.markdownDeprecationMessage ?? p.deprecationMessage) ? `Deprecated: ${p.markdownDeprecationMessage ?? p.deprecationMessage} ` : '';
      out.push(`| \`${key}\` | ${cell(type)} | ${cell(value(p.default))} | ${cell(text + (p.markdownDescription ?? p.description ?? ''))} |`);
    }
  }
  return `${out.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  writeFileSync(join(repo, 'docs', 'settings.md'), settingsPage(pkg));
}
