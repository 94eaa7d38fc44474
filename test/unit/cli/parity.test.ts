// CLI parity: --set and --no-auto-compact through the settings schema, resumed sessions keep their limits, budget counts what chat sends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CliError } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { chat, edgeRig } from './edgeRig.js';

async function cli(args: readonly string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(args, (s) => lines.push(s));
  return { code, lines };
}

async function fails(args: readonly string[]): Promise<string> {
  try {
    await cli(args);
  } catch (e) {
    assert.ok(e instanceof CliError, String(e));
    return e.message;
  }
  assert.fail(`expected an error from ${args.join(' ')}`);
}

test('--set is validated by the settings schema: unknown keys and bad values get one clear line', async (t) => {
  const rig = await edgeRig(t, { window: 65_000 });
  assert.equal((await chat(rig, 'fake-model', 'hello', '--window', '65000')).code, 0);
  assert.match(
    await fails(['budget', rig.session, '--set', 'capsule.compaction.keepRecent=5']),
    /^--set: unknown setting 'capsule\.compaction\.keepRecent' \(known: compaction\.auto, /,
  );
  assert.match(await fails(['budget', rig.session, '--set', 'keepRecentTokens=-3']), /^--set: capsule\.compaction\.keepRecentTokens \(-3\) is invalid: /);
  assert.match(await fails(['budget', rig.session, '--set', 'auto=maybe']), /^--set: capsule\.compaction\.auto \("maybe"\) is invalid/);
  assert.match(await fails(['budget', rig.session, '--set', 'keepRecentTokens']), /^--set needs <setting>=<value>/);
  assert.match(
    await fails(['chat', '--base-url', rig.server.url, '--model', 'fake-model', '--window', '2048', 'hi']),
    /^--window \(2048\) is below the smallest window Capsule supports \(4096 tokens\)/,
  );

  const ok = await cli([
    'budget',
    rig.session,
    '--set',
    'capsule.compaction.keepRecentTokens=8000',
    '--set',
    'compaction.minSavingsRatio=0.3',
    '--no-auto-compact',
  ]);
  assert.equal(ok.code, 0);
  const text = ok.lines.join('\n');
  assert.match(text, /Keep recent:\s+8,000/);
  assert.match(text, /Auto-compact:\s+OFF/);
});

test('--set capsule.agent.maxRequestsPerTurn caps a turn, and the message names the setting', async (t) => {
  const rig = await edgeRig(t, { window: 65_000 });
  let n = 0;
  rig.server.setFallback(() => ({ toolCalls: [{ name: 'list_files', arguments: { path: '.', depth: (n++ % 5) + 1 } }] }));
  const r = await chat(rig, 'fake-model', 'list forever', '--window', '65000', '--set', 'capsule.agent.maxRequestsPerTurn=4');
  assert.equal(r.code, 1);
  assert.match(r.lines[r.lines.length - 1] ?? '', /stopped after 4 model requests \(capsule\.agent\.maxRequestsPerTurn\)/);
  assert.equal(rig.server.chatRequests.length, 4);
});

test('resuming a session without --window keeps the limits recorded in it; budget counts the tool schemas chat sends and the provider figure', async (t) => {
  const rig = await edgeRig(t, { window: 200_000 });
  rig.server.setFallback(() => ({ text: 'hi there', usage: { promptTokens: 1_777 } }));
  assert.equal((await chat(rig, 'my-own-model', 'hello', '--window', '200000', '--max-output', '8000')).code, 0);
  const b = await cli(['budget', rig.session, '--json']);
  const budget = JSON.parse(b.lines.join('\n')) as {
    contextWindow: number;
    maxOutputTokens: number;
    hardLimit: number;
    categories: { tools: number };
    providerReported: { promptTokens: number } | null;
    source: string;
  };
  assert.equal(budget.contextWindow, 200_000, 'the recorded window, not the 32,768 default');
  assert.equal(budget.maxOutputTokens, 8_000);
  assert.ok(budget.categories.tools > 500, `tool schemas counted: ${budget.categories.tools}`);
  assert.equal(budget.providerReported?.promptTokens, 1_777);
  const text = (await cli(['budget', rig.session])).lines.join('\n');
  assert.match(text, /Provider reported:\s+1,777 prompt tokens for the last request \(provider_usage/);
  // A second chat turn without --window plans against the same window.
  const again = await chat(rig, 'my-own-model', 'and again');
  assert.equal(again.code, 0, again.lines.join('\n'));
  const second = rig.server.chatRequests[rig.server.chatRequests.length - 1]?.body as { max_tokens?: number; max_completion_tokens?: number } | undefined;
  assert.equal(second?.max_completion_tokens ?? second?.max_tokens, 8_000);
});

test('--set capsule.ledger.testCommands takes a JSON array or one pattern per --set; the ledger then counts that command as the verification', async (t) => {
  const { settingsFlags } = await import('../../../src/cli/settingsFlags.js');
  assert.deepEqual(settingsFlags({ set: ['capsule.ledger.testCommands=["^\\\\./check\\\\.sh","^just test"]'] }).testCommands, [
    '^\\./check\\.sh',
    '^just test',
  ]);
  assert.deepEqual(settingsFlags({ set: ['ledger.testCommands=^\\./a', 'testCommands=^\\./b'] }).testCommands, ['^\\./a', '^\\./b']);
  assert.equal(settingsFlags({ set: ['keepRecentTokens=8000'] }).testCommands, undefined);
  assert.throws(
    () => settingsFlags({ set: ['capsule.ledger.testCommands=(unclosed'] }),
    (e: unknown) => e instanceof CliError && /^--set: capsule\.ledger\.testCommands: '\(unclosed' is not a valid regular expression/.test(e.message),
  );
  assert.throws(
    () => settingsFlags({ set: ['capsule.ledger.testCommands=[1,2]'] }),
    (e: unknown) => e instanceof CliError && /takes a regular expression or a JSON array/.test(e.message),
  );
  assert.throws(
    () => settingsFlags({ set: ['capsule.ledger.other=1'] }),
    (e: unknown) => e instanceof CliError && /the ledger has one setting/.test(e.message),
  );

  const rig = await edgeRig(t, { window: 65_000 });
  const { writeFile, chmod } = await import('node:fs/promises');
  const { join } = await import('node:path');
  await writeFile(join(rig.ws, 'check.sh'), '#!/bin/sh\nseq 1 2000 | sed "s/^/checking case /"\necho "all 3 checks passed"\n');
  await chmod(join(rig.ws, 'check.sh'), 0o755);
  rig.server.setFallback((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    return last?.role === 'tool' ? { text: 'checked' } : { toolCalls: [{ name: 'run_command', arguments: { command: './check.sh' } }] };
  });
  const r = await chat(rig, 'fake-model', 'run the checks', '--window', '65000', '--set', 'capsule.ledger.testCommands=["^\\\\./check\\\\.sh"]');
  assert.equal(r.code, 0, r.lines.join('\n'));
  rig.server.setFallback(() => ({ text: 'you are welcome' }));
  assert.equal((await chat(rig, 'fake-model', 'thanks', '--window', '65000')).code, 0);
  const { loadSessionFile } = await import('../../../src/node/jsonlStore.js');
  const second =
    (await loadSessionFile(rig.session)).tree
      .branch()
      .filter((e) => e.type === 'user')
      .at(-1)?.id ?? '';
  const compacted = await cli([
    'compact',
    rig.session,
    '--fallback',
    '--window',
    '65000',
    '--up-to',
    second,
    '--set',
    'capsule.ledger.testCommands=["^\\\\./check\\\\.sh"]',
  ]);
  assert.equal(compacted.code, 0, compacted.lines.join('\n'));
  const shown = (await cli(['show', rig.session])).lines.join('\n');
  assert.match(shown, /Last verification:\*\* `?\.\/check\.sh/, shown);
});
