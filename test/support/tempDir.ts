// A temporary folder removed after the test, once whatever `closeFirst` holds by then (open stores, servers) is closed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function tempDir(
  t: { after(fn: () => Promise<void>): void },
  prefix = 'capsule-test-',
  closeFirst: readonly (() => Promise<void>)[] = [],
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(async () => {
    for (const close of closeFirst) await close();
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  });
  return dir;
}
