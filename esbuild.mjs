// Builds the extension host bundle, the CLI and the webview bundle.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { ENCODINGS, cliBuildOptions, cliLauncherOptions, encodingBuildOptions, openaiUnusedUnlessReferenced } from './scripts/cliBuild.mjs';

/** The codicon font and its CSS come from @vscode/codicons at build time instead of a committed copy. */
function copyCodicons() {
  mkdirSync('media', { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) copyFileSync(`node_modules/@vscode/codicons/dist/${f}`, `media/${f}`);
}

/**
 * zod re-exports every locale (about 270 KB minified) through `locales/index.js`; only English messages are ever
 * shown, so that index resolves to English alone.
 */
const englishOnlyZod = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: resolve(dirname(args.importer), '../locales/en.js'), namespace: 'zod-en' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-en' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/**
 * The V8 code caches of the commands bundled as one CommonJS file (src/cli/codeCache.ts), each made by running the
 * built command on a copy of a small input and keeping the bytecode that run compiled. `capsule budget` runs twice (the
 * first run counts the session, the second reads the counts as a usual budget does); `capsule import` converts a
 * Claude Code transcript. Without a cache the CLI works the same, only compiles more at start.
 */
function writeCodeCaches() {
  const dir = mkdtempSync(join(tmpdir(), 'capsule-code-cache-'));
  const runs = [
    ['dist/cli-budget.js', [{}, { CAPSULE_WRITE_CODE_CACHE: '1' }], (session) => ['budget', session], 'test/fixtures/sessions/basic.jsonl'],
    [
      'dist/cli-import.js',
      [{ CAPSULE_WRITE_CODE_CACHE: '1' }],
      (input) => ['import', input, '-o', join(dir, 'imported.jsonl')],
      'test/fixtures/import/claude-code.jsonl',
    ],
  ];
  try {
    for (const [bundle, envs, args, fixture] of runs) {
      try {
        const input = join(dir, 'input.jsonl');
        copyFileSync(fixture, input);
        for (const env of envs) {
          const r = spawnSync(process.execPath, ['dist/cli.js', ...args(input)], { env: { ...process.env, ...env }, encoding: 'utf8' });
          if (r.status !== 0) throw new Error(r.stderr || `exit ${String(r.status)}`);
        }
      } catch (e) {
        console.warn(`esbuild.mjs: no code cache for ${bundle} (${e instanceof Error ? e.message : String(e)})`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Writes dist/encodings/<name>.bin, each encoding's packed BPE table (src/node/bpePack.ts run on gpt-tokenizer's
 * ranks; the packer is bundled here because this script is not TypeScript).
 */
async function writePackedTables(names) {
  const packer = await esbuild.build({
    entryPoints: ['src/node/bpePack.ts'],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    logLevel: 'warning',
  });
  const { packRanks } = await import(`data:text/javascript;base64,${Buffer.from(packer.outputFiles[0].text).toString('base64')}`);
  mkdirSync('dist/encodings', { recursive: true });
  for (const name of names) writeFileSync(`dist/encodings/${name}.bin`, packRanks((await import(`gpt-tokenizer/bpeRanks/${name}`)).default));
}

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

// keepNames: error classification also looks at SDK error class names, which minification would rename.
const common = { bundle: true, sourcemap: !production, minify: production, keepNames: true, logLevel: 'warning', plugins: [englishOnlyZod] };

const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  // The CLI: a tiny launcher (dist/cli.js) plus ES-module chunks, so --help and short commands load only what they use,
  // and `capsule budget` and `capsule import` as one CommonJS file each (dist/cli-budget.js, dist/cli-import.js) the launcher runs directly.
  cliBuildOptions('src/cli/bin.ts', 'dist', common),
  cliLauncherOptions('src/cli/launcher.ts', 'dist', { ...common, plugins: [...common.plugins, openaiUnusedUnlessReferenced] }),
  { ...common, entryPoints: ['webview/chatApp.ts'], outfile: 'media/webview.js', platform: 'browser', format: 'iife', target: 'es2022' },
  // The thread that indexes a large session's lines before its tail (src/node/indexThread.ts), shared by the extension and the CLI.
  { ...common, entryPoints: ['src/node/indexWorker.ts'], outfile: 'dist/indexWorker.js', platform: 'node', format: 'cjs', target: 'node20' },
  // The MCP SDK (about 250 KB minified) is loaded by the extension only when MCP servers are configured.
  { ...common, entryPoints: ['src/node/mcp/runtime.ts'], outfile: 'dist/mcp.js', platform: 'node', format: 'cjs', target: 'node20' },
  // One file per BPE table, shared by the extension and the CLI, loaded only when a count needs it.
  ...ENCODINGS.map((name) => encodingBuildOptions(name, `dist/encodings/${name}.js`, resolve('.'), common)),
];

copyCodicons();
// A production build must not ship maps left over from a development build.
if (production) rmSync('dist', { recursive: true, force: true });
mkdirSync('dist', { recursive: true });
// The CLI's chunks are content-hashed: drop the previous build's so dist/ holds one set.
for (const f of readdirSync('dist', { withFileTypes: true })) if (f.isFile() && /^cli-.*\.mjs(\.map)?$/.test(f.name)) rmSync(`dist/${f.name}`);
// A code cache made for the previous build is never used (codeCache.ts compares the bytes); dropped all the same.
for (const f of ['dist/cli-budget.js.v8cache', 'dist/cli-import.js.v8cache']) rmSync(f, { force: true });
await writePackedTables(ENCODINGS);
if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  // The CLI is not in the VSIX (.vscodeignore), so a production build makes no cache for it.
  if (!production) writeCodeCaches();
}
