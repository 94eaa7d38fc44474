// How the `capsule` CLI is bundled, shared by esbuild.mjs and the tests' bundle: a tiny launcher (dist/cli.js) and
// ES-module chunks loaded on demand, so `capsule --help` reads a few kilobytes, not the whole engine; `capsule budget`
// is one CommonJS file of its own (dist/cli-budget.js).
import { dirname, join } from 'node:path';

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

/**
 * The openai package is reachable from `capsule budget` only through code it never runs (the server-window query
 * beside the file of stated windows it reads); marked free of side effects, the budget bundle keeps only what it
 * references of it (nothing), instead of 450 KB to read at every start. An esbuild plugin, so for esbuild.mjs's
 * asynchronous build only (the tests' synchronous build of the CLI takes no plugins and keeps the package).
 */
export const openaiUnusedUnlessReferenced = {
  name: 'openai-side-effect-free',
  setup(build) {
    build.onResolve({ filter: /^openai(\/|$)/ }, async (args) => {
      if (args.pluginData === 'openai-side-effect-free') return undefined;
      const { path, external, namespace, errors } = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'openai-side-effect-free',
      });
      return errors.length > 0 ? { errors } : { path, external, namespace, sideEffects: false };
    });
  },
};

/**
 * esbuild options for the executable (dist/cli.js, CommonJS: the overview help only; it imports the entry chunk at
 * run time) and for `capsule budget` as one CommonJS file beside it (dist/cli-budget.js, from src/cli/budgetBin.ts
 * beside the launcher's source), which the launcher runs directly with its code cache (src/cli/codeCache.ts): no
 * ES-module loader, one file to read.
 */
export function cliLauncherOptions(entry, outdir, common = {}) {
  return {
    ...common,
    entryPoints: { cli: entry, 'cli-budget': join(dirname(entry), 'budgetBin.ts'), 'cli-import': join(dirname(entry), 'importBin.ts') },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    // The budget bundle runs through `vm` (codeCache.ts), where Node 20 has no `import()`: each becomes a `require`
    // (`import('node:crypto')` of a sidecar's write). The launcher imports the ES-module entry through Node's own import().
    supported: { 'dynamic-import': false },
  };
}

/** The BPE encodings Capsule ships, each in its own file beside the bundles (dist/encodings/<name>.js). */
export const ENCODINGS = ['o200k_base', 'cl100k_base'];

/**
 * esbuild options for one encoding's file: the counter (src/engine/tokens/bpeCount.ts) over the packed table beside
 * it, `<name>.bin` (what src/node/bpePack.ts writes; the build writes it too, see writeEncodingTable). Raw bytes, so
 * loading decodes no string and the VSIX compresses the table as well as it compresses text.
 */
export function encodingBuildOptions(name, outfile, root, common = {}) {
  return {
    ...common,
    sourcemap: false,
    stdin: {
      contents: [
        "import { readFileSync } from 'node:fs';",
        "import { join } from 'node:path';",
        "import { packedEncoding } from './src/engine/tokens/bpeCount.ts';",
        `export const { countTokens } = packedEncoding(readFileSync(join(__dirname, ${JSON.stringify(`${name}.bin`)})), ${JSON.stringify(name)});`,
      ].join('\n'),
      resolveDir: root,
      sourcefile: `encodings/${name}.ts`,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  };
}
