// Test helper: the `capsule` CLI bundled as esbuild.mjs bundles it (launcher + ES-module chunks + BPE tables), once per test process.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { createRequire } from 'node:module';
import { ENCODINGS, cliBuildOptions, cliLauncherOptions, encodingBuildOptions } from '../../../scripts/cliBuild.mjs';
import { packRanks, type RawRanks } from '../../../src/node/bpePack.js';

const ROOT = resolve(__dirname, '..', '..', '..');
let built: string | undefined;

/** Builds the CLI into `dir` and returns its executable (`<dir>/cli.js`), so a test runs what users run. */
export function buildCliInto(dir: string): string {
  const common = { keepNames: true, logLevel: 'error' } as const;
  buildSync(cliBuildOptions(join(ROOT, 'src', 'cli', 'bin.ts'), dir, common));
  buildSync(cliLauncherOptions(join(ROOT, 'src', 'cli', 'launcher.ts'), dir, common));
  // The BPE tables live next to the bundle and load on first count, as in dist/encodings.
  mkdirSync(join(dir, 'encodings'), { recursive: true });
  for (const name of ENCODINGS) {
    const ranks = (createRequire(__filename)(`gpt-tokenizer/bpeRanks/${name}`) as { default: RawRanks }).default;
    writeFileSync(join(dir, 'encodings', `${name}.bin`), packRanks(ranks));
    buildSync(encodingBuildOptions(name, join(dir, 'encodings', `${name}.js`), ROOT, common));
  }
  return join(dir, 'cli.js');
}

/** The path of a bundled CLI (like dist/cli.js, built from the current sources into a temp folder). */
export function cliBundle(): Promise<string> {
  built ??= buildCliInto(mkdtempSync(join(tmpdir(), 'capsule-cli-bundle-')));
  return Promise.resolve(built);
}
