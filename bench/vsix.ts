// Benchmark row: the VSIX `npm run package` builds (production bundles), its size and its largest files; then the dev build is restored.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { zipEntries } from '../test/e2e/zipEntries.js';
import type { BenchRow } from './lib.js';

const ROOT = resolve(__dirname, '..');

export async function run(): Promise<BenchRow[]> {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const t0 = performance.now();
  execFileSync(npm, ['run', 'package'], { cwd: ROOT, stdio: 'ignore' });
  const ms = performance.now() - t0;
  const zip = readFileSync(join(ROOT, 'capsule.vsix'));
  const files = zipEntries(zip);
  const kb = (n: number): number => Math.round(n / 1024);
  const size = (name: string): number => kb(files.find((f) => f.name === name)?.size ?? 0);
  // The other benchmarks (and tests) expect the development build in dist/.
  execFileSync(npm, ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  return [
    {
      name: 'VSIX (npm run package)',
      medianMs: ms,
      runs: 1,
      extra: {
        vsixKb: kb(zip.length),
        files: files.length,
        extensionJsKb: size('extension/dist/extension.js'),
        webviewJsKb: size('extension/media/webview.js'),
        o200kKb: size('extension/dist/encodings/o200k_base.bin') + size('extension/dist/encodings/o200k_base.js'),
        cl100kKb: size('extension/dist/encodings/cl100k_base.bin') + size('extension/dist/encodings/cl100k_base.js'),
      },
    },
  ];
}
