// Effect measurement overhead per run_command on a 10k-file repository (git and plain), and import speed of a 100 MB Claude Code session.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importTranscript } from '../src/engine/import/importTranscript.js';
import { startCommandProbe } from '../src/node/tools/commandEffects.js';
import { executeCommand } from '../src/node/tools/runCommand.js';
import { CommandTracker } from '../src/node/tools/processGroups.js';
import { DEFAULT_TOOL_LIMITS } from '../src/node/tools/types.js';
import { type BenchRow, compare, timeMedian } from './lib.js';

const FILES = 10_000;
const RUNS = 9;

function repo(git: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'capsule-bench-effects-'));
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(dir, `d${d}`));
    for (let f = 0; f < FILES / 100; f++) writeFileSync(join(dir, `d${d}`, `f${f}.txt`), `file ${d}/${f}\nalpha\n`);
  }
  if (git) {
    const run = (...args: string[]): void => void execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=b', '-c', 'gc.auto=0', ...args], { cwd: dir, stdio: 'ignore' });
    run('init', '-q');
    run('add', '-A');
    run('commit', '-qm', 'init');
    // 10k loose objects would start a background gc that races the cleanup and the timings.
  }
  return dir;
}

async function commandRows(git: boolean): Promise<BenchRow> {
  const dir = repo(git);
  try {
    const signal = new AbortController().signal;
    const cenv = { tracker: new CommandTracker(), secrets: [] };
    let i = 0;
    // A command that changes one file, like most agent commands; alternating keeps each run a real change.
    const command = (): string => `sed -i 's/${i % 2 === 0 ? 'alpha/beta' : 'beta/alpha'}/' d${i % 100}/f0.txt`;
    const alone = await timeMedian(async () => {
      i++;
      await executeCommand(command(), dir, 60_000, DEFAULT_TOOL_LIMITS, signal, cenv);
    }, RUNS);
    const measured = await timeMedian(async () => {
      i++;
      const probe = await startCommandProbe([dir], dir);
      await executeCommand(command(), dir, 60_000, DEFAULT_TOOL_LIMITS, signal, cenv);
      await probe.finish();
    }, RUNS);
    return compare(`run_command with effect measurement (${FILES} files, ${git ? 'git' : 'plain folder'})`, measured, 'the command alone', alone, RUNS, {
      overheadMs: Math.round((measured - alone) * 10) / 10,
      ratio: Math.round((measured / alone) * 100) / 100,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** About `mb` megabytes of Claude Code session lines: the fixture's turns repeated with fresh ids and long tool results. */
function bigClaudeSession(mb: number): string {
  const fixture = readFileSync(join(__dirname, '..', 'test', 'fixtures', 'import', 'claude-code.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  const body = 'x'.repeat(2000);
  const out: string[] = [];
  let size = 0;
  for (let round = 0; size < mb * 1024 * 1024; round++) {
    for (const line of fixture) {
      const text = line.replace(/toolu_(\w+)/g, `toolu_$1_${round}`).replace(/"msg_(\w+)"/g, `"msg_$1_${round}"`).replace(/"content": ""/g, `"content": "${body}"`);
      out.push(text);
      size += text.length + 1;
    }
  }
  return `${out.join('\n')}\n`;
}

async function importRow(): Promise<BenchRow> {
  const text = bigClaudeSession(100);
  const mb = Buffer.byteLength(text) / (1024 * 1024);
  let n = 0;
  const opts = { sessionId: 's', cwd: '/x', now: '2025-01-01T00:00:00.000Z', ids: { next: (p: string) => `${p}${++n}` } };
  const runs = 3;
  const baseline = await timeMedian(() => {
    for (const line of text.split('\n')) if (line !== '') JSON.parse(line);
  }, runs, 0);
  let entries = 0;
  const t = await timeMedian(() => {
    entries = importTranscript(text, opts).entries.length;
  }, runs, 0);
  return compare(`import a ${Math.round(mb)} MB Claude Code session`, t, 'JSON.parse of every line', baseline, runs, {
    MBperS: Math.round((mb / (t / 1000)) * 10) / 10,
    entries,
  });
}

export async function run(): Promise<BenchRow[]> {
  return [await commandRows(true), await commandRows(false), await importRow()];
}
