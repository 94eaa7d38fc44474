// Runs git for the checkpoint store with a fixed, clean environment: no user or system config, no hooks, no filters, nothing from the caller's GIT_* variables.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';

/** How git is started: the executable (found on PATH by default) and the PATH it is looked up in. */
export interface GitLocation {
  readonly git: string;
  readonly path: string | undefined;
}

export class GitError extends Error {
  override readonly name = 'GitError';
}

export interface GitRun {
  /** The repository; undefined to let git find the one holding `workTree` (used only to read the user's repository location). */
  readonly gitDir: string | undefined;
  readonly workTree?: string;
  readonly indexFile?: string;
  readonly args: readonly string[];
  readonly input?: string | Buffer;
  readonly timeoutMs: number;
}

/**
 * Settings on every call. Hooks, fsmonitor and auto-maintenance off; no CRLF or filter rewriting (a checkpoint keeps
 * the bytes on disk); untracked cache on, since it makes each scan cheaper.
 */
const FIXED_CONFIG = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.quotepath=false',
  'core.untrackedCache=true',
  'core.splitIndex=false',
  'core.sparseCheckout=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'advice.detachedHead=false',
].flatMap((c) => ['-c', c]);

function cleanEnv(loc: GitLocation, r: Omit<GitRun, 'input' | 'timeoutMs'>): NodeJS.ProcessEnv {
  return {
    ...(loc.path === undefined ? {} : { PATH: loc.path }),
    // No user or system configuration: neither its side effects (hooks, filters, fsmonitor commands) nor its settings apply.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    HOME: '/nonexistent',
    XDG_CONFIG_HOME: '/nonexistent',
    ...(r.gitDir === undefined ? {} : { GIT_DIR: r.gitDir }),
    ...(r.workTree === undefined ? {} : { GIT_WORK_TREE: r.workTree }),
    ...(r.indexFile === undefined ? {} : { GIT_INDEX_FILE: r.indexFile }),
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Capsule',
    GIT_AUTHOR_EMAIL: 'capsule@localhost',
    GIT_COMMITTER_NAME: 'Capsule',
    GIT_COMMITTER_EMAIL: 'capsule@localhost',
    LC_ALL: 'C',
    // glibc hands freed memory back to the system at once by default; git allocates and frees a compressor per stored
    // file, so a first checkpoint of 10k files spent most of its time growing and shrinking the heap (38 s against
    // 2.5 s measured with these two set). Other C libraries ignore them.
    MALLOC_TRIM_THRESHOLD_: String(256 * 1024 * 1024),
    MALLOC_TOP_PAD_: String(64 * 1024 * 1024),
  };
}

/** Starts git with the fixed settings and environment, its three streams piped (for a process that stays, see CatFileBatch). */
export function spawnGit(loc: GitLocation, r: Omit<GitRun, 'input' | 'timeoutMs'>): ChildProcessWithoutNullStreams {
  return spawn(loc.git, [...FIXED_CONFIG, ...r.args], { cwd: r.workTree ?? r.gitDir ?? tmpdir(), env: cleanEnv(loc, r), stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs git; resolves with stdout as bytes, rejects with a one-line reason. */
export function runGit(loc: GitLocation, r: GitRun): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const child = spawnGit(loc, r);
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), r.timeoutMs);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new GitError(`git could not be started: ${e.message}`));
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      if (code === 0) return resolvePromise(Buffer.concat(out));
      const why =
        sig === 'SIGKILL'
          ? `took longer than ${Math.round(r.timeoutMs / 1000)} s`
          : (err
              .split('\n')
              .find((l) => l.trim() !== '')
              ?.trim() ?? `exit code ${code ?? 'none'}`);
      reject(new GitError(`git ${r.args.find((a) => !a.startsWith('-')) ?? ''}: ${why}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(r.input ?? '');
  });
}

/** Whether git runs at all from this location (checked once per store). */
export async function gitWorks(loc: GitLocation): Promise<boolean> {
  try {
    const v = (await runGit(loc, { gitDir: tmpdir(), args: ['--version'], timeoutMs: 15_000 })).toString('utf8');
    return v.startsWith('git version');
  } catch {
    return false;
  }
}
