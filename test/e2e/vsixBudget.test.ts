// The VSIX built by `npm run package` stays lean: minified bundles, lazily loaded encodings, no CLI, maps or zod locales.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { zipEntries, type ZipEntry } from './zipEntries.js';

const ROOT = join(__dirname, '..', '..');
const VSIX = join(ROOT, 'capsule.vsix');

/** The whole VSIX (about 1.8 MB when this was written; 3.8 MB before the production build). */
const VSIX_BUDGET_BYTES = 2_200_000;
/**
 * The extension bundle itself, uncompressed (about 640 KB minified when this was written; 6.4 MB with both BPE
 * tables inlined). Raised from 900 KB to 1 MB when MCP, instruction files, skills, modes and subagents landed
 * (979 KB); the MCP SDK itself stays in dist/mcp.js, loaded only when servers are configured. Raised to 1.05 MB
 * when the MCP panel, composer images, subagent cards and the protocol's zod/mini schemas landed (1,009 KB). Lowered
 * to 880 KB when the engine and host moved to `zod/mini` too (849 KB): full zod's method-chaining classes no longer
 * ship, and esbuild keeps only the zod parts the schemas use. Set to 900 KB when that landed together with the VS Code
 * tools bridge, the `diff` package, counted-once token counts, paged views and tail-first open (886 KB). Set to 920 KB
 * when the streaming importer, the checkpoints' cat-file process and the split chat service and facades landed (904 KB).
 * Set to 930 KB when the index kept its ids as bytes and sized itself up front and the import learned to leave out
 * Claude Code's second copy of each result (921 KB); the BPE counter itself lives in dist/encodings.
 */
const EXTENSION_BUDGET_BYTES = 930_000;

function entries(): ZipEntry[] {
  assert.ok(existsSync(VSIX), `${VSIX} is missing: run \`npm run package\` first (npm run test:e2e does)`);
  return zipEntries(readFileSync(VSIX));
}

function entry(all: readonly ZipEntry[], name: string): ZipEntry {
  const e = all.find((x) => x.name === name);
  assert.ok(e, `${name} is not in the VSIX: ${all.map((x) => x.name).join(', ')}`);
  return e;
}

test('the VSIX stays within its size budget', () => {
  const size = readFileSync(VSIX).length;
  assert.ok(size <= VSIX_BUDGET_BYTES, `capsule.vsix is ${size} bytes, over the budget of ${VSIX_BUDGET_BYTES}`);
  const ext = entry(entries(), 'extension/dist/extension.js');
  assert.ok(ext.size <= EXTENSION_BUDGET_BYTES, `dist/extension.js is ${ext.size} bytes, over ${EXTENSION_BUDGET_BYTES}`);
});

test('the VSIX ships no CLI bundle, no source maps and no sources', () => {
  const names = entries().map((e) => e.name);
  assert.deepEqual(
    names.filter(
      (n) =>
        n === 'extension/dist/cli.js' ||
        /^extension\/dist\/cli-.*\.(mjs|js|v8cache)$/.test(n) ||
        n.endsWith('.map') ||
        n.endsWith('.ts') ||
        n.includes('node_modules/'),
    ),
    [],
  );
});

test('each encoding is its own file and the extension bundle inlines neither BPE table', () => {
  const all = entries();
  for (const name of ['o200k_base', 'cl100k_base']) {
    // The counter's small module and the packed table it reads (src/node/bpePack.ts), beside it.
    assert.ok(entry(all, `extension/dist/encodings/${name}.js`).size < 50_000, name);
    assert.ok(entry(all, `extension/dist/encodings/${name}.bin`).size > 500_000, name);
  }
  const ext = entry(all, 'extension/dist/extension.js').read().toString('utf8');
  // Every BPE table holds this merge; the extension must reach it only through dist/encodings.
  assert.ok(!ext.includes('"ection"') && !ext.includes("'ection'"), 'a BPE table is inlined in dist/extension.js');
});

test('the index thread ships next to the extension bundle, and the shipped script indexes a session', async (t) => {
  const all = entries();
  // The extension starts it by name, next to itself (src/node/threadStart.ts).
  assert.ok(entry(all, 'extension/dist/extension.js').read().toString('utf8').includes('indexWorker'));
  const dir = mkdtempSync(join(tmpdir(), 'capsule-vsix-thread-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'indexWorker.js');
  writeFileSync(script, entry(all, 'extension/dist/indexWorker.js').read());
  const session = join(ROOT, 'test', 'fixtures', 'sessions', 'basic.jsonl');
  const worker = new Worker(script, { workerData: { path: session, maxLineBytes: 1 << 20, end: statSync(session).size } });
  const said: unknown[] = [];
  worker.on('message', (m: unknown) => said.push(m));
  await once(worker, 'exit');
  const end = said.at(-1) as { done?: boolean; lines?: number };
  assert.equal(end.done, true, JSON.stringify(end));
  assert.equal(end.lines, readFileSync(session, 'utf8').trim().split('\n').length);
  assert.ok(said.length >= 2, 'the lines came as a batch before the end');
});

test('the bundles are minified and carry English zod messages only', () => {
  const all = entries();
  for (const name of ['extension/dist/extension.js', 'extension/media/webview.js']) {
    const text = entry(all, name).read().toString('utf8');
    const lines = text.split('\n').length;
    assert.ok(text.length / lines > 1000, `${name} does not look minified (${lines} lines for ${text.length} bytes)`);
  }
  const ext = entry(all, 'extension/dist/extension.js').read().toString('utf8');
  assert.ok(ext.includes('Invalid input'), 'the English zod locale is there');
  // Words of zod's German and French messages (ASCII, so esbuild's escaping of other characters cannot hide them).
  assert.ok(!/\berwartet\b|\battendu\b/.test(ext), 'zod locales other than English are bundled');
});
