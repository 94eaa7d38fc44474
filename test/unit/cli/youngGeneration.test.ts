// `capsule chat` keeps V8's young generation at its starting size; other commands keep V8's default growth. Each case runs in its own Node process (a V8 flag is process-wide).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const MODULE = join(resolve(__dirname, '..', '..', '..'), 'src', 'cli', 'youngGeneration.ts');

/** The young generation's size (MB) after a burst of allocations that partly survive, in a process started with `argv`. */
function youngAfterBurst(argv: readonly string[]): number {
  const script = `
    const { keepYoungGenerationSmallFor } = require(${JSON.stringify(MODULE)});
    keepYoungGenerationSmallFor(${JSON.stringify(argv)});
    const kept = [];
    for (let i = 0; i < 2e6; i++) { const o = { i, s: 'x' + i }; if (i % 4 === 0) kept.push(o); }
    const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(space.space_size / 1048576) + ' ' + kept.length);
  `;
  const r = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '', 'no warning from V8 about the flag');
  return Number(r.stdout.split(' ')[0]);
}

test('a chat process keeps its young generation small through a burst; other commands let V8 grow it', () => {
  const chat = youngAfterBurst(['chat', '--model', 'm', 'hello']);
  const other = youngAfterBurst(['import', 'session.jsonl']);
  assert.ok(chat <= 4, `chat: ${String(chat)} MB of young generation`);
  assert.ok(other > chat, `import: ${String(other)} MB, chat: ${String(chat)} MB`);
  // A command line that does not parse changes nothing (main reports it).
  assert.ok(youngAfterBurst(['chat', '--no-such-flag=x']) > chat);
});
