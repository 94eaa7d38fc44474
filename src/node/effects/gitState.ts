// The git side of the effect probe: HEAD, the porcelain status of a work tree, and the blobs of paths at a commit.
import { execFile } from 'node:child_process';

/** Longest a single git query may take; a repository slower than this gets "effects unknown", never a stalled turn. */
const GIT_TIMEOUT_MS = 15_000;
/** Status output above this many bytes means a tree with too many changes to measure path by path. */
const MAX_GIT_OUTPUT = 64 * 1024 * 1024;

class GitQueryError extends Error {
  override readonly name = 'GitQueryError';
}

/** Runs git and returns stdout; rejects with a one-line reason. */
function git(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      'git',
      [...args],
      { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_GIT_OUTPUT, encoding: 'utf8', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' } },
      (err, stdout, stderr) => {
        if (!err) return resolvePromise(stdout);
        const killed = 'killed' in err && err.killed === true;
        const why = killed ? `git ${args[0] ?? ''} took longer than ${GIT_TIMEOUT_MS / 1000} s` : (stderr.split('\n')[0] ?? err.message).trim() || err.message;
        reject(new GitQueryError(why));
      },
    );
  });
}

/** The top of the work tree containing `dir`, or undefined when `dir` is not in one (or git is missing). */
export async function gitTop(dir: string): Promise<string | undefined> {
  try {
    const out = (await git(dir, ['rev-parse', '--show-toplevel'])).trim();
    return out === '' ? undefined : out;
  } catch {
    return undefined;
  }
}

export async function gitHead(top: string): Promise<string | null> {
  try {
    return (await git(top, ['rev-parse', '-q', '--verify', 'HEAD'])).trim() || null;
  } catch {
    return null; // an empty repository has no HEAD yet
  }
}

/** Path (relative to the top, as git prints it) → the two-letter porcelain code, for paths under `pathspec`. */
export async function gitStatus(top: string, pathspec: string): Promise<Map<string, string>> {
  const out = await git(top, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=dirty', '--', pathspec]);
  const map = new Map<string, string>();
  for (const rec of out.split('\0')) {
    if (rec.length < 4) continue;
    map.set(rec.slice(3), rec.slice(0, 2));
  }
  return map;
}

/** Paths that differ between two commits, with their status letter (A, M, D, T). */
export async function gitDiffNames(top: string, from: string, to: string, pathspec: string): Promise<Map<string, string>> {
  const out = await git(top, ['diff', '--name-status', '-z', '--no-renames', from, to, '--', pathspec]);
  const parts = out.split('\0');
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i] ?? '';
    const p = parts[i + 1] ?? '';
    if (p !== '') map.set(p, status.slice(0, 1));
  }
  return map;
}

/** The blob id of each path at `commit` (paths that were not there are left out). */
export async function gitBlobs(top: string, commit: string, paths: readonly string[]): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  if (paths.length === 0) return map;
  const out = await git(top, ['ls-tree', '-r', '-z', commit, '--', ...paths]);
  for (const rec of out.split('\0')) {
    const m = /^\d+ blob ([0-9a-f]+)\t(.+)$/s.exec(rec);
    if (m?.[1] !== undefined && m[2] !== undefined) map.set(m[2], m[1]);
  }
  return map;
}
