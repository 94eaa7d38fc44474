// Starts a throwaway code-server (VS Code 1.100 in the browser) with the Capsule VSIX installed, for end-to-end tests.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';

export const REPO = resolve(__dirname, '..', '..');
const VSIX = join(REPO, 'capsule.vsix');

/** The code-server binary: $CODE_SERVER_BIN, else installed into the cache by scripts/setupCodeServer.sh (fails loudly). */
function codeServerBin(): string {
  const fromEnv = process.env.CODE_SERVER_BIN;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const r = spawnSync('bash', [join(REPO, 'scripts', 'setupCodeServer.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const bin = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !existsSync(bin))
    throw new Error(
      `code-server is not available (scripts/setupCodeServer.sh exited ${r.status}); see docs/ARCHITECTURE.md (tests) and scripts/setupCodeServer.sh`,
    );
  return bin;
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

export interface CodeServer {
  readonly url: string;
  readonly workspace: string;
  readonly root: string;
  /** Everything code-server printed, for failure reports. */
  output(): string;
  /** The extension host logs of this instance, concatenated. */
  extHostLog(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly settings?: Readonly<Record<string, unknown>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly files?: Readonly<Record<string, string>>;
  /** Keep VS Code's workspace trust on (the folder then opens in Restricted Mode until trusted). */
  readonly trust?: boolean;
  /** Folders of other extensions (test fixtures), packaged and installed next to Capsule. */
  readonly extensions?: readonly string[];
}

/** Packs an extension folder into a VSIX in `outDir` with the repository's vsce; returns its path. */
function packExtension(folder: string, outDir: string): string {
  const out = join(outDir, `${basename(folder)}.vsix`);
  const vsce = join(REPO, 'node_modules', '.bin', 'vsce');
  const r = spawnSync(vsce, ['package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', out], { cwd: folder, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`packing the fixture extension ${folder} failed: ${(r.stderr || r.stdout).trim()}`);
  return out;
}

function findFiles(dir: string, pattern: RegExp): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) out.push(...findFiles(p, pattern));
    else if (pattern.test(d.name)) out.push(p);
  }
  return out;
}

async function waitForHttp(url: string, proc: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`code-server exited with ${proc.exitCode} before it served`);
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer at ${url} within ${timeoutMs} ms`);
}

export async function startCodeServer(opts: StartOptions = {}): Promise<CodeServer> {
  if (!existsSync(VSIX)) throw new Error(`${VSIX} is missing: run 'npm run package' first`);
  const bin = codeServerBin();
  const root = mkdtempSync(join(tmpdir(), 'capsule-e2e-'));
  const user = join(root, 'user');
  const ext = join(root, 'ext');
  const workspace = join(root, 'workspace');
  mkdirSync(join(user, 'User'), { recursive: true });
  mkdirSync(workspace, { recursive: true });
  for (const [name, text] of Object.entries(opts.files ?? { 'README.md': '# sample workspace\n' })) writeFileSync(join(workspace, name), text);
  writeFileSync(
    join(user, 'User', 'settings.json'),
    JSON.stringify(
      {
        'security.workspace.trust.enabled': opts.trust === true,
        'workbench.startupEditor': 'none',
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'workbench.tips.enabled': false,
        ...opts.settings,
      },
      null,
      2,
    ),
  );
  const install = spawnSync(bin, ['--extensions-dir', ext, '--user-data-dir', user, '--install-extension', VSIX], { encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`installing the VSIX into code-server failed: ${(install.stderr || install.stdout).trim()}`);
  for (const folder of opts.extensions ?? []) {
    const vsix = packExtension(folder, root);
    const other = spawnSync(bin, ['--extensions-dir', ext, '--user-data-dir', user, '--install-extension', vsix], { encoding: 'utf8' });
    if (other.status !== 0) throw new Error(`installing ${vsix} into code-server failed: ${(other.stderr || other.stdout).trim()}`);
  }

  const port = await freePort();
  let log = '';
  const proc = spawn(
    bin,
    [
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--user-data-dir',
      user,
      '--extensions-dir',
      ext,
      '--disable-telemetry',
      '--disable-update-check',
      ...(opts.trust === true ? [] : ['--disable-workspace-trust']),
      workspace,
    ],
    {
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: stop() ends the server and every process it started (the extension host keeps writing
      // to the user-data folder after the server itself is gone, which made removing that folder fail with ENOTEMPTY).
      detached: true,
    },
  );
  proc.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const url = `http://127.0.0.1:${port}/`;
  await waitForHttp(`${url}healthz`, proc, 60_000);
  return {
    url: `${url}?folder=${encodeURIComponent(workspace)}`,
    workspace,
    root,
    output: () => log,
    extHostLog: () =>
      findFiles(join(user, 'logs'), /^exthost\d*\.log$|^remoteexthost\.log$/)
        .map((f) => readFileSync(f, 'utf8'))
        .join('\n'),
    stop: async () => {
      await stopGroup(proc);
      if (!process.env.CAPSULE_KEEP_E2E) rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the server's whole process group, then wait until every member is gone (SIGKILL after a generous bound). */
async function stopGroup(proc: ChildProcess): Promise<void> {
  const pid = proc.pid;
  if (pid === undefined) return;
  const signal = (s: NodeJS.Signals): void => {
    try {
      process.kill(-pid, s);
    } catch {
      // The group is already gone.
    }
  };
  signal('SIGTERM');
  for (let i = 0; i < 300 && groupAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  signal('SIGKILL');
  for (let i = 0; i < 200 && groupAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
}
