// The user's secret that signs change-log records: kept in user-level state outside every workspace, created once with mode 0600.
import { constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { errCode } from '../fsUtil.js';
import { openRegularFile } from '../regularFile.js';

/** 32 random bytes as hex: what a key file holds, one line. */
const KEY_TEXT = /^[0-9a-f]{64}\n?$/;

/**
 * The CLI's key file: $CAPSULE_KEY_FILE, else beside the learned limits in $XDG_CONFIG_HOME/capsule/ (or
 * ~/.config/capsule/). Never inside a workspace: a log shipped with a cloned repository cannot carry valid records.
 */
export function cliKeyPath(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.CAPSULE_KEY_FILE?.trim();
  if (explicit) return explicit;
  const config = env.XDG_CONFIG_HOME?.trim() || join(homedir(), '.config');
  return join(config, 'capsule', 'snapshot.key');
}

class IntegrityKeyError extends Error {
  override readonly name = 'IntegrityKeyError';
}

async function readKey(path: string): Promise<Buffer> {
  // The regular-file check on the opened descriptor, and no link followed: a FIFO or a planted link is refused.
  const handle = await openRegularFile(path, 'snapshot key file', constants.O_NOFOLLOW);
  try {
    const st = await handle.stat();
    if ((st.mode & 0o077) !== 0) await handle.chmod(st.mode & 0o700).catch(() => undefined);
    const text = (await handle.readFile()).toString('utf8');
    if (!KEY_TEXT.test(text))
      throw new IntegrityKeyError(
        `snapshot key file ${path} is damaged (expected 64 hex digits); delete it to start a new key (earlier file snapshots can then no longer be restored)`,
      );
    return Buffer.from(text.trim(), 'hex');
  } finally {
    await handle.close();
  }
}

/** Writes a fresh key beside the target, then links it into place: two processes racing both end up with the one that won. */
async function createKey(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await handle.writeFile(`${randomBytes(32).toString('hex')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(tmp, 0o600);
    await link(tmp, path);
  } catch (err) {
    if (errCode(err) !== 'EEXIST') throw err;
  } finally {
    await rm(tmp, { force: true });
  }
}

const loaded = new Map<string, Promise<Buffer>>();

/** The key at `path`, created on first use; one read per process and path. */
export function integrityKey(path: string): Promise<Buffer> {
  const known = loaded.get(path);
  if (known !== undefined) return known;
  const p = (async (): Promise<Buffer> => {
    try {
      return await readKey(path);
    } catch (err) {
      if (errCode(err) !== 'ENOENT') throw err;
    }
    await createKey(path);
    return readKey(path);
  })();
  // A failure (a damaged file, a full disk) is not remembered: the next use tries again and says why.
  p.catch(() => loaded.delete(path));
  loaded.set(path, p);
  return p;
}
