// Pending compaction intents beside the session file, so a restart (extension or CLI) keeps what the last run meant to do.
import { parseJsonText } from '../engine/jsonText.js';
import { readRegularFile } from './regularFile.js';
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errCode } from './fsUtil.js';

/** The saved TriggerState JSON, or undefined when there is none yet. A damaged file reads as none: it only loses intents. */
export async function readIntents(path: string): Promise<unknown> {
  let text: string;
  try {
    text = (await readRegularFile(path, 'intents file')).toString('utf8');
  } catch (err) {
    if (errCode(err) === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return parseJsonText(text);
  } catch {
    return undefined;
  }
}

/** Replaces the file in one rename, so a crash leaves the old intents or the new ones, never half a file. */
export async function writeIntents(path: string, state: unknown): Promise<void> {
  // A fresh name created exclusively: whatever sits at a fixed temp name (a FIFO would block the write) is never opened.
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(tmp, `${JSON.stringify(state)}\n`, { encoding: 'utf8', flag: 'wx' });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
