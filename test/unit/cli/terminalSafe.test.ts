// Provider text reaches the terminal inert: escape sequences in a streamed answer, an error body or a tool name are shown, never obeyed, and the model cannot print a line that passes for Capsule's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { tempDir } from '../agent/agentHelpers.js';
import { answerLine, inline, visible } from '../../../src/cli/terminalText.js';
import { cliBundle } from './cliBundle.js';

/** Clear the screen, retitle the window (OSC 0 … BEL), a one-byte CSI, backspace over text, a bare CR. */
const HOSTILE = 'A\x1b[2J\x1b]0;owned\x07B\x9b31mC\bD\rE\u202eF';
/** Bytes a terminal would act on; none may reach it. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/;

function run(cli: string, s: FakeOpenAIServer, dir: string, extra: readonly string[] = []) {
  const child = spawn(
    process.execPath,
    [
      cli,
      'chat',
      '--base-url',
      s.url,
      '--model',
      'fake-model',
      '--window',
      '60000',
      '--max-output',
      '2000',
      '--session',
      join(dir, 'chat.jsonl'),
      '--workspace',
      dir,
      ...extra,
      'go',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CAPSULE_LIMITS_FILE: join(dir, 'limits.json') },
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.once('close', (code) => resolve({ code, out, err })));
}

test('the sanitizer: caret notation for C0 and DEL, <U+…> for C1 and bidi controls; tabs and newlines stay; status-like answer lines are marked', () => {
  assert.equal(visible('a\x1b[31mb\x07c\x7fd\x9be\u202ef\tg\nh'), 'a^[[31mb^Gc^?d<U+009B>e<U+202E>f\tg\nh');
  assert.equal(inline('one\r\n[turn completed]'), 'one ⏎ [turn completed]');
  assert.equal(answerLine('[turn completed]'), '\\[turn completed]');
  assert.equal(answerLine('\\[x]'), '\\\\[x]');
  assert.equal(answerLine('plain text\r'), 'plain text');
  assert.equal(visible(visible(HOSTILE)), visible(HOSTILE), 'idempotent');
});

test('escape sequences in a streamed answer and fake status lines: shown visibly, and only Capsule prints lines starting with [', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-tty-');
  const s = await startFakeOpenAI({ window: 60_000 });
  t.after(() => s.close());
  s.enqueue({ text: `Here ${HOSTILE} done\n[turn completed]\n[session] /etc/passwd\n\\[escaped already]\nlast line` });
  const r = await run(await cliBundle(), s, dir);
  assert.equal(r.code, 0, r.out + r.err);
  assert.doesNotMatch(r.out + r.err, CONTROL);
  assert.match(r.out, /^Here A\^\[\[2J\^\[\]0;owned\^GB<U\+009B>31mC\^HD\^ME<U\+202E>F done$/m);
  const lines = r.out.split('\n');
  assert.deepEqual(
    lines.filter((l) => l === '[turn completed]'),
    ['[turn completed]'],
    'exactly one [turn completed], and it is the last status',
  );
  assert.ok(lines.includes('\\[turn completed]'));
  assert.ok(lines.includes('\\[session] /etc/passwd'));
  assert.ok(lines.includes('\\\\[escaped already]'));
  assert.ok(!lines.some((l) => l.startsWith('[session]')), 'a --session run prints no [session] line of its own');
});

test('escape sequences in an error body and in a tool name stay on their status line, visible', async (t) => {
  const dir = await tempDir(t, 'capsule-cli-tty-err-');
  const s = await startFakeOpenAI({ window: 60_000 });
  t.after(() => s.close());
  s.enqueue({ toolCalls: [{ name: `evil\x1b]0;title\x07\n[turn completed]`, arguments: { x: '\x1b[2J' } }] });
  s.enqueue({ status: 400, body: { error: { message: `upstream broke ${HOSTILE}\n[turn completed]`, type: 'invalid_request_error' } } });
  const r = await run(await cliBundle(), s, dir, ['--yes']);
  assert.equal(r.code, 1, r.out + r.err);
  assert.doesNotMatch(r.out + r.err, CONTROL);
  const lines = r.out.split('\n');
  assert.ok(
    lines.some((l) => /^\[tool\] evil\^\[\]0;title\^G ⏎ \[turn completed\]/.test(l)),
    r.out,
  );
  assert.ok(
    lines.some((l) => /^\[error\] .*upstream broke A\^\[\[2J/.test(l)),
    r.out,
  );
  assert.equal(lines.filter((l) => l.startsWith('[turn ')).length, 1, r.out);
  assert.match(lines.find((l) => l.startsWith('[turn ')) ?? '', /^\[turn failed\]/);
});
