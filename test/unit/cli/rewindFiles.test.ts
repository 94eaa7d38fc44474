// `capsule rewind --files`, `--dry-run`, `capsule undo-compaction` and `capsule compact --up-to` through main(), on sessions the real agent wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
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
  server.setFallback(
    agentResponder((text) => (text.startsWith('edit') ? [{ name: 'run_command', arguments: { command: 'echo two > a.txt && echo new > b.txt' } }] : [])),
  );
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
  const c = JSON.parse((await cli(['compact', path, '--fallback', '--up-to', cut.id, '--window', '200000', '--json'])).out) as {
    outcomes: { outcome: string; checkpointId: string; capsuleId: string }[];
  };
  const done = c.outcomes.find((o) => o.outcome === 'completed');
  assert.ok(done, JSON.stringify(c.outcomes));
  const capsule = (await loadSessionFile(path)).tree.get(done.capsuleId);
  assert.equal(capsule?.type === 'capsule' ? capsule.firstKeptEntryId : undefined, cut.id);

  const undo = JSON.parse((await cli(['undo-compaction', path, done.checkpointId, '--window', '200000', '--json'])).out) as {
    tokensBefore: number;
    tokensAfter: number;
  };
  assert.ok(undo.tokensAfter > undo.tokensBefore, 'the summarized turns are back in the input');
  const redo = await cli(['undo-compaction', path, done.checkpointId, '--redo', '--window', '200000']);
  assert.match(redo.out, /redone: its capsule is in force again/);
  await assert.rejects(
    cli(['undo-compaction', path, done.checkpointId, '--redo', '--window', '200000']),
    (e: unknown) => e instanceof CliError && /not undone/.test(e.message),
  );
  await assert.rejects(
    cli(['undo-compaction', path, done.checkpointId, '--window', '20000']),
    (e: unknown) => e instanceof CliError && /above the hard limit/.test(e.message) && !e.message.includes('\n'),
  );
  await assert.rejects(cli(['compact', path, '--fallback', '--up-to', 'x y']), (e: unknown) => e instanceof CliError && /--up-to needs/.test(e.message));
});

/** A chat whose one turn ran `command` in `dir`; returns the session path and the first message's id. */
async function chatThatRan(t: { after(fn: () => Promise<void>): void }, dir: string, command: string): Promise<{ path: string; userId: string }> {
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.setFallback(agentResponder((text) => (text.startsWith('edit') ? [{ name: 'run_command', arguments: { command } }] : [])));
  const { session: s, path } = await openSession(server, dir, { window: 64_000, maxOutput: 4_000 });
  const r = await s.turn({ userText: 'edit the files', signal: new AbortController().signal });
  assert.equal(r.status, 'completed', r.error);
  const user = s.store.tree.branch().find((e) => e.type === 'user');
  await s.close();
  assert.ok(user);
  return { path, userId: user.id };
}

test('a change log naming outside paths (as a cloned repository could ship one) is refused: the dry run warns, --files exits 3 and changes nothing outside', async (t) => {
  const top = await tempDir(t, 'capsule-cli-crafted-');
  const dir = join(top, 'ws');
  const outside = join(top, 'outside');
  await mkdir(dir);
  await mkdir(outside);
  await writeFile(join(outside, 'victim.txt'), 'precious\n');
  await writeFile(join(outside, 'delete-me.txt'), 'keep me\n');
  await writeFile(join(dir, 'a.txt'), 'one\n');
  const { path, userId } = await chatThatRan(t, dir, 'echo two > a.txt');
  // What a crafted log says: the first message's moment had other content at three outside paths.
  const evil = createHash('sha256').update('pwned\n').digest('hex');
  await mkdir(join(dir, 'chat.files', 'objects', evil.slice(0, 2)), { recursive: true });
  await writeFile(join(dir, 'chat.files', 'objects', evil.slice(0, 2), evil.slice(2)), 'pwned\n');
  const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
  const at = new Date().toISOString();
  const crafted = [
    { path: join(outside, 'victim.txt'), leaf: userId, before: evil, after: sha('precious\n'), why: 'command', at },
    { path: join(outside, 'delete-me.txt'), leaf: userId, before: null, after: sha('keep me\n'), why: 'command', at },
    { path: join(outside, 'created.txt'), leaf: userId, before: evil, after: null, why: 'command', at },
  ];
  await appendFile(join(dir, 'chat.files', 'changes.jsonl'), `${crafted.map((c) => JSON.stringify(c)).join('\n')}\n`);

  const dry = await cli(['rewind', path, userId, '--dry-run']);
  assert.equal(dry.code, 0);
  assert.match(dry.out, /^ {2}restore .*a\.txt$/m);
  assert.match(dry.out, /^Warning: 3 change-log records are refused and would not be applied:$/m);
  assert.ok(
    dry.out.includes(`  refused ${join(outside, 'victim.txt')} — names a path outside this session's workspace folders (absolute, or through ..)`),
    dry.out,
  );

  const run = await cli(['rewind', path, userId, '--files']);
  assert.equal(run.code, 3, run.out);
  assert.match(run.out, /^Files: 1 restored, 3 refused\.$/m);
  assert.ok(run.out.includes(`  refused ${join(outside, 'created.txt')} — names a path outside`), run.out);
  assert.equal(await readFile(join(dir, 'a.txt'), 'utf8'), 'one\n', 'the genuine record is applied');
  assert.equal(await readFile(join(outside, 'victim.txt'), 'utf8'), 'precious\n');
  assert.equal(await readFile(join(outside, 'delete-me.txt'), 'utf8'), 'keep me\n');
  assert.equal(existsSync(join(outside, 'created.txt')), false);
});

test('a file the agent grew past the 8 MB cap and the user then rewrote is kept (exit 3); --force overwrites it only after keeping a copy, and says where', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-big-');
  await writeFile(join(dir, 'data.csv'), 'id,v\n1,a\n');
  const { path, userId } = await chatThatRan(t, dir, "head -c 9000000 /dev/zero | tr '\\0' x > data.csv");
  await writeFile(join(dir, 'data.csv'), 'the user rewrote this\n');

  const dry = await cli(['rewind', path, userId, '--dry-run']);
  assert.match(
    dry.out,
    /^ {2}restore .*data\.csv — changed since: Capsule did not keep its last content, so it cannot tell whether it was edited \(kept unless --force\)$/m,
  );
  const kept = await cli(['rewind', path, userId, '--files-only']);
  assert.equal(kept.code, 3, kept.out);
  assert.match(kept.out, /^Files: 0 restored, 1 left as they are\.$/m);
  assert.match(
    kept.out,
    /^ {2}kept .*data\.csv — changed since: Capsule did not keep its last content \(too large, or the snapshot store was full\), so it cannot tell whether you edited it; left as it is$/m,
  );
  assert.match(kept.out, /^Run again with --force to overwrite the files changed since; each is first copied to .*chat\.files\/kept\/<time>\/\.$/m);
  assert.equal(await readFile(join(dir, 'data.csv'), 'utf8'), 'the user rewrote this\n');

  const forced = await cli(['rewind', path, userId, '--files-only', '--force']);
  assert.equal(forced.code, 0, forced.out);
  assert.match(forced.out, /^Files: 1 restored \(1 overwritten after keeping your version\)\.$/m);
  const where = /^ {2}overwrote .*data\.csv — your version was kept at (.+)$/m.exec(forced.out)?.[1];
  assert.ok(where !== undefined && where.startsWith(join(dir, 'chat.files', 'kept')), forced.out);
  assert.equal(await readFile(where, 'utf8'), 'the user rewrote this\n');
  assert.equal(await readFile(join(dir, 'data.csv'), 'utf8'), 'id,v\n1,a\n');
});

test('a folder replaced by a link to an outside folder is not followed by rewind --files: nothing is created outside, exit 3, the file is named', async (t) => {
  const top = await tempDir(t, 'capsule-cli-link-');
  const dir = join(top, 'ws');
  const outside = join(top, 'outside');
  await mkdir(dir);
  await mkdir(outside);
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.setFallback(
    agentResponder((text) =>
      text.startsWith('one')
        ? [{ name: 'write_file', arguments: { path: 'sub/x.txt', content: 'x\n' } }]
        : text.startsWith('two')
          ? [{ name: 'run_command', arguments: { command: 'rm sub/x.txt' } }]
          : [],
    ),
  );
  const { session: s, path } = await openSession(server, dir, { window: 64_000, maxOutput: 4_000 });
  for (const text of ['one: write it', 'two: remove it'])
    assert.equal((await s.turn({ userText: text, signal: new AbortController().signal })).status, 'completed');
  const second = s.store.entries().filter((e) => e.type === 'user')[1];
  await s.close();
  assert.ok(second);
  await rm(join(dir, 'sub'), { recursive: true });
  await symlink(outside, join(dir, 'sub'));
  const run = await cli(['rewind', path, second.id, '--files']);
  assert.equal(run.code, 3, run.out);
  assert.match(run.out, /^Files: 0 restored, 1 refused\.$/m);
  assert.ok(
    run.out.includes(`  refused ${join(dir, 'sub', 'x.txt')} — the folder sub on its path is now a symbolic link; Capsule does not follow it`),
    run.out,
  );
  assert.equal(existsSync(join(outside, 'x.txt')), false);
});
