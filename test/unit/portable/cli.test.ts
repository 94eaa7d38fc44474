// `capsule export` and `capsule load` through the CLI's main(): outputs, one-line errors and non-zero exits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLI_OPTIONS, CliError } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { CAPSULE_QUESTION, buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { tempDir, writeSession } from './helpers.js';

const ROOT = join(__dirname, '..', '..', '..');

async function run(argv: readonly string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(argv, (s) => lines.push(s));
  return { code, lines };
}

async function fails(argv: readonly string[], exitCode: number, message: RegExp): Promise<void> {
  await assert.rejects(
    main(argv, () => undefined),
    (e: unknown) => {
      assert.ok(e instanceof CliError, String(e));
      assert.equal(e.exitCode, exitCode, e.message);
      assert.match(e.message, message);
      assert.doesNotMatch(e.message, /\n/);
      return true;
    },
  );
}

test('the parser knows the flags export and load take', () => {
  const missing = ['title', 'force', 'new-session', 'into', 'anyway'].filter((f) => !Object.hasOwn(CLI_OPTIONS, f));
  assert.deepEqual(missing, [], 'src/cli/args.ts CLI_OPTIONS needs: title (string), force (boolean), new-session (string), into (string), anyway (boolean)');
});

test("capsule export writes the checkpoint's capsule and refuses to overwrite without --force", async (t) => {
  const dir = await tempDir(t);
  const { path } = await writeSession(dir);
  const out = join(dir, 'handoff.capsule.md');
  const r = await run(['export', path, 'ck_first', '-o', out, '--title', 'handoff auth work']);
  assert.equal(r.code, 0);
  assert.match(r.lines.join('\n'), /^exported capsule ck_first as cap_\w+ \(full, \d+ tokens\) to .*handoff\.capsule\.md$/);
  assert.match(await readFile(out, 'utf8'), /^---\ncapsule: 1\n[\s\S]*\ntitle: "handoff auth work"\n/);

  await fails(['export', path, '-o', out], 1, /already exists; pass --force to overwrite it/);
  assert.equal((await run(['export', path, '-o', out, '--force'])).code, 0);
  await fails(['export', path, 'ck_missing', '-o', join(dir, 'x.capsule.md')], 1, /no checkpoint ck_missing/);
  await fails(['export', path, 'first', '-o', join(dir, 'x.capsule.md')], 2, /not a checkpoint id/);
  await fails(['export', path], 2, /missing -o/);
  await fails(['export'], 2, /missing session file/);
});

test('capsule load --new-session seeds a session the next request starts from; --into adds a handoff', async (t) => {
  const dir = await tempDir(t);
  const { path, capsule } = await writeSession(dir);
  const file = join(dir, 'h.capsule.md');
  assert.equal((await run(['export', path, '-o', file])).code, 0);

  const fresh = join(dir, 'other-workspace', 'sessions', 'new.jsonl');
  const r = await run(['load', file, '--new-session', fresh, '--workspace', '/elsewhere']);
  assert.equal(r.code, 0);
  assert.match(
    r.lines.join('\n'),
    /^loaded capsule cap_\w+ ".*" \(full, \d+ tokens\) into new session s_\w+ at .*new\.jsonl \(checkpoint ck_\w+\); the next request starts from it$/,
  );
  const input = buildModelInput((await loadSessionFile(fresh)).tree.branch(), 'S');
  assert.equal(input.messages[0]?.content, CAPSULE_QUESTION);
  assert.ok(input.messages[1]?.content.endsWith(capsule.summary));

  const into = await run(['load', file, '--into', path]);
  assert.equal(into.code, 0);
  assert.match(into.lines.join('\n'), /as a handoff capsule/);

  await fails(['load', file, '--new-session', fresh], 1, /already exists/);
  await fails(['load', file], 2, /exactly one of --new-session or --into/);
  await fails(['load', file, '--new-session', join(dir, 'a.jsonl'), '--into', path], 2, /exactly one of/);
  await fails(['load'], 2, /missing capsule file/);
});

test('capsule load refuses an edited file unless --anyway, and rejects files that are not capsules', async (t) => {
  const dir = await tempDir(t);
  const { path } = await writeSession(dir);
  const file = join(dir, 'h.capsule.md');
  await run(['export', path, '-o', file]);
  await writeFile(file, (await readFile(file, 'utf8')).replace('Finish polling', 'Delete the repo'));
  await fails(['load', file, '--new-session', join(dir, 'n.jsonl')], 1, /edited after export.*--anyway/);
  const r = await run(['load', file, '--new-session', join(dir, 'n.jsonl'), '--anyway']);
  assert.equal(r.code, 0);
  assert.match(r.lines[0] ?? '', /^warning: the capsule was edited after export/);

  const garbage = join(dir, 'g.capsule.md');
  await writeFile(garbage, Buffer.from([0xff, 0xfe, 0x00, 0x81, 0xc3, 0x28]));
  await fails(['load', garbage, '--new-session', join(dir, 'g.jsonl')], 1, /not UTF-8 text/);
  const v9 = join(dir, 'v9.capsule.md');
  await writeFile(v9, (await readFile(file, 'utf8')).replace(/^capsule: 1$/m, 'capsule: 9'));
  await fails(['load', v9, '--new-session', join(dir, 'v.jsonl'), '--anyway'], 1, /format version 9 is not supported/);
});

test('the installed command prints one line on stderr and exits non-zero', async (t) => {
  const dir = await tempDir(t);
  const garbage = join(dir, 'g.capsule.md');
  await writeFile(garbage, Buffer.from([0x00, 0xff, 0x13, 0x37]));
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'bin.ts'), 'load', garbage, '--new-session', join(dir, 's.jsonl')], {
    encoding: 'utf8',
    cwd: ROOT,
  });
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^capsule: .*g\.capsule\.md: capsule file is not UTF-8 text.*\n$/);
  assert.equal(r.stderr.split('\n').length, 2);
});
