// A new session file: its header line, written once (exclusive create, fsync of the file and its folder).
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CURRENT_VERSION, SessionHeaderSchema, type SessionHeader } from '../engine/transcript/schema.js';
import { errCode, oneLine, syncDir } from './fsUtil.js';
import { writeAll } from './tornTail.js';

/** What a created session's header names. */
export interface SessionCreate {
  readonly id: string;
  readonly cwd: string;
  readonly title?: string;
}

export function headerLine(create: SessionCreate, now: number): Buffer {
  const header: SessionHeader = SessionHeaderSchema.parse({
    type: 'session',
    version: CURRENT_VERSION,
    id: create.id,
    createdAt: new Date(now).toISOString(),
    cwd: create.cwd,
    ...(create.title === undefined ? {} : { title: create.title }),
  });
  return Buffer.from(`${JSON.stringify(header)}\n`, 'utf8');
}

/** Creates the file with its header, unless it already exists. */
export async function createIfMissing(path: string, create: SessionCreate, now: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  let h: FileHandle;
  try {
    h = await open(path, 'wx');
  } catch (err) {
    if (errCode(err) === 'EEXIST') return;
    throw new Error(`Cannot create session file ${path}: ${oneLine(err)}`);
  }
  try {
    await writeAll(h, headerLine(create, now));
    await h.sync();
  } finally {
    await h.close();
  }
  await syncDir(dirname(path));
}
