// Test helper: the `capsule` CLI bundled once per test process with the project's esbuild settings, so child processes start fast.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';

const ROOT = resolve(__dirname, '..', '..', '..');
let built: Promise<string> | undefined;

/** The path of a bundled CLI (like dist/cli.js, built from the current sources into a temp folder). */
export function cliBundle(): Promise<string> {
  built ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'capsule-cli-bundle-'));
    const outfile = join(dir, 'cli.js');
    await esbuild.build({ entryPoints: [join(ROOT, 'src', 'cli', 'main.ts')], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', keepNames: true, logLevel: 'warning' });
    // The BPE tables live next to the bundle and load on first count, as in dist/encodings.
    for (const name of ['o200k_base', 'cl100k_base']) {
      const entry = join(ROOT, 'node_modules', 'gpt-tokenizer', 'esm', 'encoding', `${name}.js`);
      await esbuild.build({ entryPoints: [entry], outfile: join(dir, 'encodings', `${name}.js`), bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' });
    }
    return outfile;
  })();
  return built;
}
