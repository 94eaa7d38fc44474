// How the `capsule` CLI is bundled, shared by esbuild.mjs and the tests' bundle: a tiny launcher (dist/cli.js) and
// ES-module chunks loaded on demand, so `capsule --help` reads a few kilobytes, not the whole engine.
import { join } from 'node:path';

/** Node's CommonJS helpers for the ES-module chunks: bundled CommonJS dependencies and the code's own __dirname use them. */
const ESM_PRELUDE = [
  "import { createRequire as __capsuleCreateRequire } from 'node:module';",
  "import { fileURLToPath as __capsuleFileURLToPath } from 'node:url';",
  "import { dirname as __capsuleDirname } from 'node:path';",
  'const require = __capsuleCreateRequire(import.meta.url);',
  'const __filename = __capsuleFileURLToPath(import.meta.url);',
  'const __dirname = __capsuleDirname(__filename);',
].join('\n');

/**
 * esbuild options for the CLI's chunks in `outdir`. Chunks sit beside the launcher (not in a subfolder) because the
 * tokenizer looks for its tables in `<the bundle's folder>/encodings`.
 */
export function cliBuildOptions(entry, outdir, common = {}) {
  return {
    ...common,
    entryPoints: { 'cli-main': entry },
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'cli-[hash]',
    banner: { js: ESM_PRELUDE },
  };
}

/** esbuild options for the executable (dist/cli.js): CommonJS, the overview help only; it imports the entry chunk at run time. */
export function cliLauncherOptions(entry, outdir, common = {}) {
  return {
    ...common,
    entryPoints: [entry],
    outfile: join(outdir, 'cli.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  };
}
