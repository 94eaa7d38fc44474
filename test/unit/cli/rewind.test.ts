// `capsule compact` then `capsule rewind` through main(): both go through the engine facade; rewind moves the leaf, keeps every entry, and says why when it cannot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { session } from '../compaction/harness.js';
import { tempDir, writeSession } from '../agent/agentHelpers.js';

async function cli(argv: readonly string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(argv, (s) => lines.push(s));
  return { code, out: lines.join('\n') };
}

async function fails(argv: readonly string[], message: RegExp, exitCode: number): Promise<void> {
  await assert.rejects(cli(argv), (e: unknown) => {
    assert.ok(e instanceof CliError, String(e));
    assert.match(e.message, message);
    assert.ok(!e.message.includes('\n'), 'one line');
    assert.equal(e.exitCode, exitCode);
    return true;
  });
}

test('rewind to the checkpoint a compaction made lands just after its capsule (never over the hard limit); rewinding to a message lands before it; the file only grows', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'chat.jsonl');
  await writeSession(path, session(30, 100));
  const budgetBefore = JSON.parse((await cli(['budget', path, '--window', '65000', '--json'])).out) as { effectiveTokens: number };
  const compacted = JSON.parse((await cli(['compact', path, '--fallback', '--window', '65000', '--json'])).out) as {
    outcomes: { checkpointId: string | null }[];
  };
  const ck = compacted.outcomes[0]?.checkpointId ?? '';
  assert.match(ck, /^ck_/);
  const entriesBefore = (await loadSessionFile(path)).tree.entries().length;

  const r = await cli(['rewind', path, ck, '--window', '65000', '--json']);
  assert.equal(r.code, 0);
  const out = JSON.parse(r.out) as { checkpointId: string; tokens: number; hardLimit: number };
  assert.equal(out.checkpointId, ck);

  const load = await loadSessionFile(path);
  assert.equal(load.tree.entries().length, entriesBefore + 1, 'one leaf entry appended, nothing removed');
  const last = load.tree.branch().at(-1);
  assert.equal(last?.type === 'capsule' ? last.checkpointId : undefined, ck, 'the active branch ends at the capsule of that checkpoint');
  assert.ok(out.tokens < budgetBefore.effectiveTokens, 'the model input is the compacted one');
  assert.ok(out.tokens <= out.hardLimit);

  const firstUser = load.tree.branch().find((e) => e.type === 'user');
  const toMessage = JSON.parse((await cli(['rewind', path, firstUser?.id ?? '', '--window', '65000', '--json'])).out) as { message: string; tokens: number };
  assert.equal(toMessage.message, firstUser?.type === 'user' ? firstUser.content : undefined, 'the message text comes back');
  assert.ok(!(await loadSessionFile(path)).tree.branch().some((e) => e.type === 'user'), 'before the first message');
  assert.equal((await cli(['verify', path])).code, 0);

  const human = await cli(['rewind', path, ck]);
  assert.match(human.out, new RegExp(`^Rewound .* to ${ck}:`));
});

test('rewind errors are one line, exit 1 or 2, and leave the file as it was', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'chat.jsonl');
  await writeSession(path, session(3, 10));
  const before = await readFile(path, 'utf8');
  await fails(['rewind', path, 'ck_nope'], /Checkpoint ck_nope is not in/, 1);
  await fails(['rewind', path], /missing checkpoint or entry id/, 2);
  await fails(['rewind', path, 'e_123'], /Entry e_123 is not in/, 1);
  await fails(['rewind', path, '../etc'], /is not a checkpoint id/, 2);
  await fails(['rewind', path, 'ck_x', '--files', '--files-only'], /exclude each other/, 2);
  await fails(['rewind', join(dir, 'missing.jsonl'), 'ck_x'], /missing\.jsonl/, 1);
  assert.equal(await readFile(path, 'utf8'), before);
});

test('rewind takes --set and --no-auto-compact like compact and budget: the printed limits follow them, bad values are one line', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'chat.jsonl');
  await writeSession(path, session(30, 100));
  const compacted = JSON.parse((await cli(['compact', path, '--fallback', '--window', '65000', '--json'])).out) as {
    outcomes: { checkpointId: string | null }[];
  };
  const ck = compacted.outcomes[0]?.checkpointId ?? '';
  const plain = JSON.parse((await cli(['rewind', path, ck, '--window', '65000', '--json'])).out) as { hardLimit: number };
  const set = JSON.parse(
    (await cli(['rewind', path, ck, '--window', '65000', '--set', 'capsule.compaction.safetyReserveTokens=1000', '--no-auto-compact', '--json'])).out,
  ) as { hardLimit: number };
  assert.equal(set.hardLimit - plain.hardLimit, 8192 - 1000, 'the hard limit printed uses the --set reserve');
  await fails(['rewind', path, ck, '--set', 'keepRecentTokens=-3'], /^--set: capsule\.compaction\.keepRecentTokens \(-3\) is invalid: /, 2);
});
