// `npm run test:vscode`: downloads desktop VS Code 1.100.3, builds the extension and the in-host suite, runs the suite.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { downloadAndUnzipVSCode, runTests, TestRunFailedError } from '@vscode/test-electron';
import * as esbuild from 'esbuild';

/** The oldest VS Code that package.json `engines.vscode` (^1.100.0) accepts, matching code-server 4.100.3 in test:e2e. */
const VSCODE_VERSION = '1.100.3';
const REPO = resolve(__dirname, '..', '..');
/** Already in .vscodeignore; reused between runs so only the first one downloads. */
const CACHE = join(REPO, '.vscode-test');
const SUITE = join(REPO, 'dist-test', 'suite.js');

/** A failure whose message is the whole story: printed alone, without a stack. */
class LaunchError extends Error {}

function oneLine(err: unknown): string {
  // test-electron rejects with plain strings in places, and Node network errors carry their code separately.
  const text = err instanceof Error ? err.message : String(err);
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  const line = text.replace(/\s+/g, ' ').trim();
  return code && !line.includes(code) ? `${code} ${line}` : line;
}

async function downloadVSCode(): Promise<string> {
  try {
    // With a copy already under .vscode-test this does not touch the network.
    return await downloadAndUnzipVSCode({ version: VSCODE_VERSION, cachePath: CACHE, extensionDevelopmentPath: REPO });
  } catch (err) {
    throw new LaunchError(`test:vscode needs to download VS Code ${VSCODE_VERSION} (no network?): ${oneLine(err)}`);
  }
}

async function build(): Promise<void> {
  // The extension under test is dist/extension.js (package.json `main`), built by the project's own build.
  const r = spawnSync(process.execPath, [join(REPO, 'esbuild.mjs')], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new LaunchError(`test:vscode: building the extension (node esbuild.mjs) failed with exit code ${String(r.status)}`);
  try {
    await esbuild.build({
      entryPoints: [join(REPO, 'test', 'vscode', 'suite', 'index.ts')],
      outfile: SUITE,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['vscode'],
      sourcemap: true,
      logLevel: 'warning',
    });
  } catch (err) {
    throw new LaunchError(`test:vscode: bundling the extension-host suite failed: ${oneLine(err)}`);
  }
}

function checkDisplay(): void {
  // Electron cannot start without one; say how to get one instead of letting it crash.
  if (process.platform !== 'linux' || process.env.DISPLAY || process.env.WAYLAND_DISPLAY) return;
  throw new LaunchError('test:vscode: no display for desktop VS Code ($DISPLAY is unset); run it as `xvfb-run -a npm run test:vscode`');
}

async function main(): Promise<void> {
  const vscodeExecutablePath = await downloadVSCode();
  await build();
  checkDisplay();
  // Fresh profile and workspace per run: settings a failed run left behind cannot leak into the next.
  const scratch = mkdtempSync(join(tmpdir(), 'capsule-vst-'));
  try {
    const workspace = join(scratch, 'workspace');
    const userData = join(scratch, 'user-data');
    mkdirSync(workspace);
    await runTests({
      vscodeExecutablePath,
      extensionDevelopmentPath: REPO,
      extensionTestsPath: SUITE,
      launchArgs: [workspace, '--disable-extensions', `--user-data-dir=${userData}`, `--extensions-dir=${join(scratch, 'extensions')}`],
      extensionTestsEnv: { CAPSULE_TEST_LOGS_DIR: join(userData, 'logs') },
    });
  } catch (err) {
    if (err instanceof TestRunFailedError) throw new LaunchError(`test:vscode: the extension-host tests failed (${err.message}); see the output above`);
    throw err;
  } finally {
    rmSync(scratch, { recursive: true, force: true, maxRetries: 10 });
  }
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (err: unknown) => {
    console.error(err instanceof LaunchError ? err.message : err);
    process.exitCode = 1;
  },
);
