// Builds the extension host bundle, the CLI and the webview bundle.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { cliBuildOptions, cliLauncherOptions } from './scripts/cliBuild.mjs';

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

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

// keepNames: error classification also looks at SDK error class names, which minification would rename.
const common = { bundle: true, sourcemap: !production, minify: production, keepNames: true, logLevel: 'warning', plugins: [englishOnlyZod] };

const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  // The CLI: a tiny launcher (dist/cli.js) plus ES-module chunks, so --help and short commands load only what they use.
  cliBuildOptions('src/cli/bin.ts', 'dist', common),
  cliLauncherOptions('src/cli/launcher.ts', 'dist', common),
  { ...common, entryPoints: ['webview/chatApp.ts'], outfile: 'media/webview.js', platform: 'browser', format: 'iife', target: 'es2022' },
  // The MCP SDK (about 250 KB minified) is loaded by the extension only when MCP servers are configured.
  { ...common, entryPoints: ['src/node/mcp/runtime.ts'], outfile: 'dist/mcp.js', platform: 'node', format: 'cjs', target: 'node20' },
  // One file per BPE table, shared by the extension and the CLI, loaded only when a count needs it.
  ...['o200k_base', 'cl100k_base'].map((name) => ({
    ...common,
    sourcemap: false,
    entryPoints: [`node_modules/gpt-tokenizer/esm/encoding/${name}.js`],
    outfile: `dist/encodings/${name}.js`,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  })),
];

copyCodicons();
// A production build must not ship maps left over from a development build.
if (production) rmSync('dist', { recursive: true, force: true });
mkdirSync('dist', { recursive: true });
// The CLI's chunks are content-hashed: drop the previous build's so dist/ holds one set.
for (const f of readdirSync('dist', { withFileTypes: true })) if (f.isFile() && /^cli-.*\.mjs(\.map)?$/.test(f.name)) rmSync(`dist/${f.name}`);
if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
