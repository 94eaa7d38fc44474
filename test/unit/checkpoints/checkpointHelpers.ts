// Test helper: a workspace (git or plain), a FileSnapshots on it with a hand-moved "newest entry", commands run through the real tool, and the user's git state to compare.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LogLevel } from '../../../src/engine/ports.js';
import { FileSnapshots, type SnapshotDeps } from '../../../src/node/snapshots/fileSnapshots.js';
import { applyRestore, planRestore } from '../../../src/node/snapshots/restore.js';
import { CommandTracker } from '../../../src/node/tools/processGroups.js';
import { executeCommand } from '../../../src/node/tools/runCommand.js';
import { DEFAULT_TOOL_LIMITS } from '../../../src/node/tools/types.js';
import { tempDir } from '../agent/agentHelpers.js';

export function git(cwd: string, ...args: string[]): string {
  // No optional locks: reading the state must not refresh the index it compares.
  return execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgSign=false', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
  });
}

/** A temp folder with `files`, committed when `repo`. */
export async function makeWorkspace(
  t: { after(fn: () => Promise<void>): void },
  files: Readonly<Record<string, string>>,
  repo: boolean,
): Promise<{ dir: string; ws: string }> {
  const dir = await tempDir(t, 'capsule-ck-');
  const ws = join(dir, 'ws');
  await mkdir(ws);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(dirname(join(ws, rel)), { recursive: true });
    await writeFile(join(ws, rel), text);
  }
  if (repo) {
    git(ws, 'init', '-q');
    git(ws, 'add', '-A');
    git(ws, 'commit', '-qm', 'init');
  }
  return { dir, ws };
}

export class Chat {
  readonly snapshots: FileSnapshots;
  readonly logs: { level: LogLevel; message: string; fields?: Readonly<Record<string, unknown>> }[] = [];
  private moment = 0;

  constructor(
    readonly ws: string,
    readonly store: string,
    extra: Partial<SnapshotDeps> = {},
  ) {
    this.snapshots = new FileSnapshots({
      dir: store,
      roots: [ws],
      leaf: () => `m${this.moment}`,
      logger: { log: (level, message, fields) => void this.logs.push({ level, message, ...(fields === undefined ? {} : { fields }) }) },
      ...extra,
    });
  }

  next(): string {
    this.moment++;
    return `m${this.moment}`;
  }

  get now(): string {
    return `m${this.moment}`;
  }

  async command(cmd: string): Promise<void> {
    const r = await this.snapshots.aroundCommand(() =>
      executeCommand(cmd, this.ws, 20_000, DEFAULT_TOOL_LIMITS, new AbortController().signal, { tracker: new CommandTracker(), secrets: [] }),
    );
    if (r.code !== 0) throw new Error(`${cmd} failed with ${String(r.code)}: ${r.output}`);
  }

  async restore(moment: string): Promise<Awaited<ReturnType<typeof applyRestore>>> {
    const pos = (id: string | null): number => (id === null ? -1 : Number(id.slice(1)));
    const plan = await planRestore(this.snapshots, pos, pos(moment));
    this.next();
    return applyRestore(this.snapshots, plan, { overwriteOutside: false, leaf: this.now });
  }

  /** Paths (relative) the change log names, in order. */
  async logged(): Promise<string[]> {
    return (await this.snapshots.log.all()).map((c) => c.path.slice(this.ws.length + 1));
  }
}

/** Everything of the user's repository a checkpoint must not change: HEAD, refs, stash, index bytes, config, status. */
export async function userGitState(ws: string): Promise<Record<string, string>> {
  const index = createHash('sha256')
    .update(await readFile(join(ws, '.git', 'index')))
    .digest('hex');
  return {
    head: git(ws, 'rev-parse', 'HEAD'),
    refs: git(ws, 'for-each-ref'),
    stash: git(ws, 'stash', 'list'),
    index,
    config: await readFile(join(ws, '.git', 'config'), 'utf8'),
    status: git(ws, 'status', '--porcelain', '--untracked-files=all'),
    gitFiles: (await readdir(join(ws, '.git'))).sort().join(','),
  };
}

/** Loose objects under a folder (how many contents the shadow store wrote itself). */
export async function looseCount(objectsDir: string): Promise<number> {
  let n = 0;
  for (const d of await readdir(objectsDir).catch(() => [] as string[])) if (/^[0-9a-f]{2}$/.test(d)) n += (await readdir(join(objectsDir, d))).length;
  return n;
}
