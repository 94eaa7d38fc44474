// Confinement without a race: while another process swaps a folder for a link to outside, no read or write escapes (0 in 1,000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { files, makeHost, workspace } from './toolHelpers.js';

const CALLS = Number(process.env.CAPSULE_RACE_CALLS ?? 1000);

/** A separate process flips `inner` between a real folder and a link to the outside folder as fast as it can. */
function startSwapper(ws: string, outside: string) {
  const code = `
    const fs = require('node:fs');
    const p = require('node:path');
    const ws = ${JSON.stringify(ws)};
    const at = (n) => p.join(ws, n);
    fs.symlinkSync(${JSON.stringify(outside)}, at('link'));
    const nap = new Int32Array(new SharedArrayBuffer(4));
    // Each state holds for up to a millisecond, so calls land in all of them: folder, link, and the gaps between.
    const hold = () => Atomics.wait(nap, 0, 0, Math.random());
    // A write that lands in a gap creates a fresh folder named inner: clear it so the swapping goes on.
    const clear = () => { if (fs.existsSync(at('dir')) && fs.existsSync(at('link'))) fs.rmSync(at('inner'), { recursive: true, force: true, maxRetries: 10 }); };
    fs.writeFileSync(at('swapping'), '');
    for (;;) {
      try { fs.renameSync(at('dir'), at('inner')); hold(); fs.renameSync(at('inner'), at('dir')); } catch { clear(); }
      try { fs.renameSync(at('link'), at('inner')); hold(); fs.renameSync(at('inner'), at('link')); } catch { clear(); }
    }`;
  return spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
}

test(`read_file, write_file, list_files and search under a concurrent folder→link swap: 0 escapes in ${CALLS}`, { timeout: 600_000 }, async (t) => {
  const { ws, outside } = await workspace(t);
  await writeFile(join(outside, 'passwd'), 'OUTSIDE-SECRET\n');
  await writeFile(join(outside, 'outside-only.txt'), '');
  await mkdir(join(ws, 'dir'));
  await files(ws, { 'dir/passwd': 'inside copy\n' });
  const swapper = startSwapper(ws, outside);
  t.after(() => {
    swapper.kill('SIGKILL');
  });
  while (!existsSync(join(ws, 'swapping'))) await new Promise((r) => setTimeout(r, 10));
  const h = makeHost(ws);
  let readEscapes = 0;
  let listEscapes = 0;
  let searchEscapes = 0;
  let reads = 0;
  let writes = 0;
  for (let i = 0; i < CALLS; i++) {
    const r = await h.call('read_file', { path: 'inner/passwd' });
    if (r.content.includes('OUTSIDE-SECRET')) readEscapes++;
    if (!r.isError) reads++;
    const w = await h.call('write_file', { path: `inner/new-${i}.txt`, content: 'written\n' });
    if (!w.isError) writes++;
    const l = await h.call('list_files', { path: 'inner' });
    if (l.content.includes('outside-only')) listEscapes++;
    // ripgrep is a process per call: one search in ten keeps the test short.
    if (i % 10 === 0) {
      const f = await h.call('search', { query: 'OUTSIDE-SECRET', path: 'inner' });
      if (f.content.includes('passwd:1:')) searchEscapes++;
    }
  }
  swapper.kill('SIGKILL');
  const writeEscapes = (await readdir(outside)).filter((n) => n.startsWith('new-') || n.includes('capsule-tmp')).length;
  assert.equal(readEscapes, 0, `${readEscapes} of ${CALLS} reads returned the outside file`);
  assert.equal(writeEscapes, 0, `${writeEscapes} of ${CALLS} writes landed outside the workspace`);
  assert.equal(listEscapes, 0, `${listEscapes} of ${CALLS} listings showed the outside folder`);
  assert.equal(searchEscapes, 0, `${searchEscapes} of ${CALLS / 10} searches found the outside file`);
  // The race really ran both ways: some calls went through, others were refused.
  assert.ok(reads > 0 && reads < CALLS, `${reads} reads succeeded`);
  assert.ok(writes > 0, `${writes} writes succeeded`);
  assert.equal(existsSync(join(outside, 'passwd')), true);
});
