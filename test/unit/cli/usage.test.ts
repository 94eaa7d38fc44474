// The usage lines `--help` prints without loading the commands stay true to them: import's --from lists every format the importer takes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IMPORT_FORMATS } from '../../../src/engine/import/report.js';
import { IMPORT_USAGE } from '../../../src/cli/usage.js';
import { main } from '../../../src/cli/main.js';

test("import's usage names exactly the importer's formats, in order", () => {
  assert.match(IMPORT_USAGE, new RegExp(`\\[--from ${IMPORT_FORMATS.join('\\|')}\\]`));
});

test('--help lists every command with its usage line; a command still runs when loaded on demand', async () => {
  const lines: string[] = [];
  assert.equal(await main(['--help'], (s) => lines.push(s)), 0);
  assert.match(lines.join('\n'), /capsule verify <session\.jsonl> \[--json\]/);
  assert.match(lines.join('\n'), new RegExp(IMPORT_USAGE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  const out: string[] = [];
  await assert.rejects(main(['verify', '/nonexistent/capsule-session.jsonl'], (s) => out.push(s)));
});
