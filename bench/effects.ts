// What one run_command costs through the tool host, checkpoint included, against `sh -c` and `git status` in the same run; the checkpoint store's size; import speed.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, lstatSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { importTranscript } from '../src/engine/import/importTranscript.js';
import { FileSnapshots } from '../src/node/snapshots/fileSnapshots.js';
import { WorkspaceToolHost } from '../src/node/tools/workspaceToolHost.js';
import { type BenchRow, compare, median, timeMedian } from './lib.js';

const exec = promisify(execFile);
const STEADY_RUNS = 9;
const FIRST_RUNS = 2;
const GROWTH_COMMANDS = 100;
/** USER_HZ: the unit of the CPU times in /proc (100 on every Linux build in use). */
const TICKS_PER_S = 100;

interface Workspace {
  readonly name: string;
  readonly dir: string;
  readonly git: boolean;
  /** A file the steady-state commands edit (relative). */
  readonly target: (i: number) => string;
  /** A file "the user" edits between the tool's commands (relative), so every checkpoint has a user's change to take in first. */
  readonly userTarget: (i: number) => string;
}

function gitInit(dir: string): void {
  const g = (...args: string[]): void =>
    void execFileSync('git', ['-c', 'user.email=b@example.com', '-c', 'user.name=b', '-c', 'gc.auto=0', ...args], { cwd: dir, stdio: 'ignore' });
  g('init', '-q');
  g('add', '-A');
  g('commit', '-qm', 'init');
}

/** 10,000 small source-like files in 100 folders. */
function smallFiles(git: boolean): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'capsule-bench-effects-'));
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(dir, `d${d}`));
    for (let f = 0; f < 100; f++) writeFileSync(join(dir, `d${d}`, `f${f}.txt`), `file ${d}/${f}\nalpha\n${'line of text\n'.repeat(30)}`);
  }
  if (git) gitInit(dir);
  return { name: `10k files, ${git ? 'git' : 'plain folder'}`, dir, git, target: (i) => `d${i % 100}/f0.txt`, userTarget: (i) => `d${(i + 50) % 100}/f1.txt` };
}

/** About 100 MB: 400 files of 256 KB (random, so neither store can compress them away), committed. */
function bigWorkspace(): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'capsule-bench-effects-big-'));
  for (let d = 0; d < 20; d++) {
    mkdirSync(join(dir, `d${d}`));
    for (let f = 0; f < 20; f++) writeFileSync(join(dir, `d${d}`, `b${f}.bin`), randomBytes(256 * 1024));
  }
  mkdirSync(join(dir, 'src'));
  for (let f = 0; f < 10; f++) writeFileSync(join(dir, 'src', `m${f}.txt`), `module ${f}\nalpha\n`);
  gitInit(dir);
  return { name: '100 MB, git', dir, git: true, target: (i) => `src/m${i % 5}.txt`, userTarget: (i) => `src/m${5 + (i % 5)}.txt` };
}

function dirBytes(dir: string): number {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop() ?? '';
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      const p = join(d, n);
      const st = lstatSync(p);
      if (st.isDirectory()) stack.push(p);
      else total += st.size;
    }
  }
  return total;
}

/** A tool host as a session builds it: run_command through the file capture of a fresh snapshot folder. */
function host(ws: Workspace, store: string): WorkspaceToolHost & { readonly snapshots: FileSnapshots } {
  const snapshots = new FileSnapshots({ dir: store, roots: [ws.dir], leaf: () => 'e1' });
  return Object.assign(new WorkspaceToolHost({ roots: [ws.dir], approve: async () => true, trusted: () => true, capture: snapshots }), { snapshots });
}

/** A command that changes one small file in place, like most agent commands; a new first line keeps each run a real change. */
function edit(ws: Workspace, i: number, user = false): string {
  return `sed -i '1s/.*/edit ${i}/' ${user ? ws.userTarget(i) : ws.target(i)}`;
}

/** user + sys + children's (waited for) CPU ticks of one process, from /proc/<pid>/stat. */
function ticksOf(pid: number | 'self'): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return f
    .slice(f.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 15)
    .reduce((a, b) => a + Number(b), 0);
}

/** The CPU ticks of the live descendants of `pid` (a git that stays running for a chat is one). */
function liveDescendantTicks(pid: number | 'self'): number {
  let total = 0;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const task of tasks) {
    let kids: string;
    try {
      kids = readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1');
    } catch {
      continue;
    }
    for (const k of kids.split(' ').filter((x) => x !== '')) {
      try {
        total += ticksOf(Number(k)) + liveDescendantTicks(Number(k));
      } catch {
        // Gone between the two reads: its time is in its parent's children's figures once collected.
      }
    }
  }
  return total;
}

/** CPU time (ms) used so far by the process tree: this process, the children it has waited for, and those still running. */
function cpuMs(): number {
  return ((ticksOf('self') + liveDescendantTicks('self')) * 1000) / TICKS_PER_S;
}

async function tool(h: WorkspaceToolHost, command: string): Promise<void> {
  const r = await h.run('run_command', JSON.stringify({ command }), new AbortController().signal);
  if (r.isError) throw new Error(`bench command failed: ${r.content}`);
}

async function workspaceRows(ws: Workspace): Promise<BenchRow[]> {
  const stores = mkdtempSync(join(tmpdir(), 'capsule-bench-stores-'));
  try {
    let i = 0;
    // First command of a chat: a fresh snapshot folder each time.
    const firsts: number[] = [];
    let firstStore = 0;
    for (let r = 0; r < FIRST_RUNS; r++) {
      const store = join(stores, `first${r}`);
      const h = host(ws, store);
      const t0 = performance.now();
      await tool(h, edit(ws, i++));
      firsts.push(performance.now() - t0);
      firstStore = dirBytes(store);
      h.snapshots.close();
      await h.dispose();
    }
    // Steady state: one chat, the tool, `sh -c` and `git status` interleaved so load hits all of them alike. Between
    // two of the tool's commands "the user" edits another file (the `sh -c` run), so each checkpoint has that to take
    // in. The work a checkpoint leaves for after the result (index update) is waited for outside the timed part and
    // timed on its own; CPU time counts it.
    const h = host(ws, join(stores, 'steady'));
    await tool(h, edit(ws, i++));
    await h.snapshots.idle();
    const toolMs: number[] = [];
    const laterMs: number[] = [];
    const shMs: number[] = [];
    const statusMs: number[] = [];
    let toolCpu = 0;
    let statusCpu = 0;
    let shCpu = 0;
    for (let r = 0; r < STEADY_RUNS; r++) {
      let c0 = cpuMs();
      let t0 = performance.now();
      await tool(h, edit(ws, i++));
      toolMs.push(performance.now() - t0);
      t0 = performance.now();
      await h.snapshots.idle();
      laterMs.push(performance.now() - t0);
      toolCpu += cpuMs() - c0;
      c0 = cpuMs();
      t0 = performance.now();
      await exec('sh', ['-c', edit(ws, i++, true)], { cwd: ws.dir });
      shMs.push(performance.now() - t0);
      shCpu += cpuMs() - c0;
      if (ws.git) {
        c0 = cpuMs();
        t0 = performance.now();
        await exec('git', ['status'], { cwd: ws.dir, maxBuffer: 64 * 1024 * 1024 });
        statusMs.push(performance.now() - t0);
        statusCpu += cpuMs() - c0;
      }
    }
    const scans = await h.snapshots.checkpointScans();
    h.snapshots.close();
    await h.dispose();
    const tMs = median(toolMs);
    const sMs = median(shMs);
    const gMs = median(statusMs);
    const overhead = tMs - sMs;
    const round = (n: number, d = 1): number => Math.round(n * 10 ** d) / 10 ** d;
    const counts = (c: { full: number; paths: number; none: number }): string => `${c.full} whole/${c.paths} paths/${c.none} none`;
    return [
      compare(`run_command + checkpoint, first of a chat (${ws.name})`, median(firsts), 'sh -c', sMs, FIRST_RUNS, {
        storeAfterFirstKB: Math.round(firstStore / 1024),
        workspaceKB: Math.round(dirBytes(ws.dir) / 1024),
        ...(ws.git ? { firstPerGitStatus: round(median(firsts) / gMs, 1) } : {}),
      }),
      compare(`run_command + checkpoint, steady state (${ws.name})`, tMs, 'sh -c', sMs, STEADY_RUNS, {
        overheadMs: round(overhead),
        // How the scans before and after the tool's commands were done: whole, only the paths the watcher saw change, none.
        ...(scans === undefined
          ? {}
          : {
              scansBefore: counts(scans.before),
              scansBeforeWithoutGit: scans.beforeWithoutGit,
              scansAfter: counts(scans.after),
              scansAfterWithoutGit: scans.afterWithoutGit,
            }),
        afterResultMs: round(median(laterMs)),
        toolPerShC: round(tMs / sMs, 1),
        toolCpuMs: round(toolCpu / STEADY_RUNS),
        overheadCpuMs: round((toolCpu - shCpu) / STEADY_RUNS),
        // A plain folder has no `git status` to compare with: `sh -c` is its floor.
        ...(ws.git
          ? {
              gitStatusMs: round(gMs),
              overheadPerGitStatus: round(overhead / gMs, 2),
              toolPerGitStatus: round(tMs / gMs, 2),
              gitStatusCpuMs: round(statusCpu / STEADY_RUNS),
              overheadCpuPerGitStatusCpu: round((toolCpu - shCpu) / statusCpu, 2),
            }
          : {}),
      }),
    ];
  } finally {
    rmSync(stores, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** 100 commands, each rewriting one 4 KB file with new content: how much the store grows against the bytes changed. */
async function growthRow(ws: Workspace): Promise<BenchRow> {
  const stores = mkdtempSync(join(tmpdir(), 'capsule-bench-growth-'));
  try {
    const store = join(stores, 's');
    const h = host(ws, store);
    await tool(h, 'true');
    const start = dirBytes(store);
    let changed = 0;
    const times: number[] = [];
    for (let i = 0; i < GROWTH_COMMANDS; i++) {
      const text = `version ${i}\n${randomBytes(2048).toString('hex')}\n`;
      const file = join(ws.dir, ws.git && ws.name.startsWith('100 MB') ? 'src' : `d${i % 10}`, 'grow.txt');
      changed += Buffer.byteLength(text);
      const t0 = performance.now();
      await tool(h, `printf '%s' '${text.replace(/\n/g, '\\n')}' > ${file}`);
      times.push(performance.now() - t0);
      await h.snapshots.idle();
    }
    h.snapshots.close();
    await h.dispose();
    const growth = dirBytes(store) - start;
    return compare(`store growth over ${GROWTH_COMMANDS} commands (${ws.name})`, median(times), 'bytes changed (KB)', changed / 1024, GROWTH_COMMANDS, {
      storeGrowthKB: Math.round(growth / 1024),
      bytesChangedKB: Math.round(changed / 1024),
      growthPerByteChanged: Math.round((growth / changed) * 100) / 100,
    });
  } finally {
    rmSync(stores, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** About `mb` megabytes of Claude Code session lines: the fixture's turns repeated with fresh ids and long tool results. */
function bigClaudeSession(mb: number): string {
  const fixture = readFileSync(join(__dirname, '..', 'test', 'fixtures', 'import', 'claude-code.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const body = 'x'.repeat(2000);
  const out: string[] = [];
  let size = 0;
  for (let round = 0; size < mb * 1024 * 1024; round++) {
    for (const line of fixture) {
      const text = line
        .replace(/toolu_(\w+)/g, `toolu_$1_${round}`)
        .replace(/"msg_(\w+)"/g, `"msg_$1_${round}"`)
        .replace(/"content": ""/g, `"content": "${body}"`);
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
  const baseline = await timeMedian(
    () => {
      for (const line of text.split('\n')) if (line !== '') JSON.parse(line);
    },
    runs,
    0,
  );
  let entries = 0;
  const t = await timeMedian(
    () => {
      entries = importTranscript(text, opts).entries.length;
    },
    runs,
    0,
  );
  return compare(`import a ${Math.round(mb)} MB Claude Code session`, t, 'JSON.parse of every line', baseline, runs, {
    MBperS: Math.round((mb / (t / 1000)) * 10) / 10,
    entries,
  });
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // CAPSULE_BENCH_EFFECTS=git10k|plain10k|big runs one workspace's rows (the machine may be shared).
  const only = process.env.CAPSULE_BENCH_EFFECTS;
  const all = { git10k: () => smallFiles(true), plain10k: () => smallFiles(false), big: bigWorkspace };
  for (const [key, make] of Object.entries(all)) {
    if (only !== undefined && only !== key) continue;
    const ws = make();
    try {
      process.stderr.write(`bench: effects: ${ws.name} ...\n`);
      rows.push(...(await workspaceRows(ws)));
      rows.push(await growthRow(ws));
    } finally {
      rmSync(ws.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  }
  if (process.env.CAPSULE_BENCH_SKIP_IMPORT !== '1') rows.push(await importRow());
  return rows;
}
