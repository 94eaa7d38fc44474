// `capsule rewind --files`, `--dry-run`, `capsule undo-compaction` and `capsule compact --up-to` through main(), on sessions the real agent wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { session } from '../compaction/harness.js';
import { agentResponder, openSession, tempDir, writeSession } from '../agent/agentHelpers.js';

async function cli(argv: readonly string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(argv, (s) => lines.push(s));
  return { code, out: lines.join('\n') };
}

test('capsule rewind --dry-run lists the files, --files restores them; without --files only the conversation moves', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-rewind-');
  await writeFile(join(dir, 'a.txt'), 'one\n');
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.setFallback(agentResponder((text) => (text.startsWith('edit') ? [{ name: 'run_command', arguments: { command: 'echo two > a.txt && echo new > b.txt' } }] : [])));
  const { session: s, path } = await openSession(server, dir, { window: 64_000, maxOutput: 4_000 });
  const r = await s.turn({ userText: 'edit the files', signal: new AbortController().signal });
  assert.equal(r.status, 'completed', r.error);
  const user = s.store.tree.branch().find((e) => e.type === 'user');
  await s.close();
  assert.ok(user);

  const dry = await cli(['rewind', path, user.id, '--dry-run']);
  assert.equal(dry.code, 0);
  assert.match(dry.out, /Files that differ from that point \(2\)/);
  assert.match(dry.out, /restore .*a\.txt/);
  assert.match(dry.out, /delete \(created later\) .*b\.txt/);
  assert.match(dry.out, /The message sent there was: "edit the files"/);
  assert.equal(await readFile(join(dir, 'a.txt'), 'utf8'), 'two\n', 'a dry run changes nothing');

  const conv = JSON.parse((await cli(['rewind', path, user.id, '--json'])).out) as { mode: string; files?: unknown };
  assert.equal(conv.mode, 'conversation');
  assert.equal(await readFile(join(dir, 'a.txt'), 'utf8'), 'two\n');
  const noted = (await loadSessionFile(path)).tree.branch().at(-1);
  assert.ok(noted?.type === 'system_update' && noted.content.includes('a.txt'), 'the model will be told which files differ');

  const both = await cli(['rewind', path, user.id, '--files']);
  assert.equal(both.code, 0, both.out);
  assert.match(both.out, /Files: 2 restored/);
  assert.equal(await readFile(join(dir, 'a.txt'), 'utf8'), 'one\n');
  assert.equal(existsSync(join(dir, 'b.txt')), false);
});

test('capsule undo-compaction and --redo; capsule compact --up-to keeps that message verbatim', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-undo-');
  const path = join(dir, 'chat.jsonl');
  await writeSession(path, session(30, 100));
  const users = (await loadSessionFile(path)).tree.branch().filter((e) => e.type === 'user');
  const cut = users[20];
  assert.ok(cut);
  const c = JSON.parse((await cli(['compact', path, '--fallback', '--up-to', cut.id, '--window', '200000', '--json'])).out) as { outcomes: { outcome: string; checkpointId: string; capsuleId: string }[] };
  const done = c.outcomes.find((o) => o.outcome === 'completed');
  assert.ok(done, JSON.stringify(c.outcomes));
  const capsule = (await loadSessionFile(path)).tree.get(done.capsuleId);
  assert.equal(capsule?.type === 'capsule' ? capsule.firstKeptEntryId : undefined, cut.id);

  const undo = JSON.parse((await cli(['undo-compaction', path, done.checkpointId, '--window', '200000', '--json'])).out) as { tokensBefore: number; tokensAfter: number };
  assert.ok(undo.tokensAfter > undo.tokensBefore, 'the summarized turns are back in the input');
  const redo = await cli(['undo-compaction', path, done.checkpointId, '--redo', '--window', '200000']);
  assert.match(redo.out, /redone: its capsule is in force again/);
  await assert.rejects(cli(['undo-compaction', path, done.checkpointId, '--redo', '--window', '200000']), (e: unknown) => e instanceof CliError && /not undone/.test(e.message));
  await assert.rejects(cli(['undo-compaction', path, done.checkpointId, '--window', '20000']), (e: unknown) => e instanceof CliError && /above the hard limit/.test(e.message) && !e.message.includes('\n'));
  await assert.rejects(cli(['compact', path, '--fallback', '--up-to', 'x y']), (e: unknown) => e instanceof CliError && /--up-to needs/.test(e.message));
});
