// Moves a session file's torn tail to the `.corrupt` sidecar and truncates the file to its last good line.
import { open } from 'node:fs/promises';
import { openRegularFileForAppend } from './regularFile.js';

const COPY_CHUNK_BYTES = 1024 * 1024;

export function corruptSidecarPath(sessionPath: string): string {
  return `${sessionPath}.corrupt`;
}

/**
 * Copies bytes [goodBytes, bytes) of `path` to `<path>.corrupt` (appending, after one JSON line that
 * says when and from where), fsyncs the sidecar, then truncates `path` to `goodBytes` and fsyncs it.
 * The copy is durable before the cut, so a crash in between at worst copies the tail twice.
 * Streams in chunks: a torn tail can be a 200 MB half-written line.
 */
export async function moveTailAside(path: string, goodBytes: number, bytes: number, now: Date): Promise<string> {
  const sidecar = corruptSidecarPath(path);
  const src = await open(path, 'r+');
  try {
    const dst = await openRegularFileForAppend(sidecar, 'corrupt-tail sidecar');
    try {
      const note = { type: 'corrupt_tail', movedAt: now.toISOString(), from: path, offset: goodBytes, bytes: bytes - goodBytes };
      await dst.write(`${JSON.stringify(note)}\n`);
      const buf = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
      let pos = goodBytes;
      let lastByte = -1;
      while (pos < bytes) {
        const { bytesRead } = await src.read(buf, 0, Math.min(COPY_CHUNK_BYTES, bytes - pos), pos);
        if (bytesRead === 0) break;
        await writeAll(dst, buf.subarray(0, bytesRead));
        lastByte = buf[bytesRead - 1] ?? -1;
        pos += bytesRead;
      }
      // Keep the sidecar line-oriented so the next moved tail starts on its own line.
      if (lastByte !== 0x0a) await dst.write('\n');
      await dst.sync();
    } finally {
      await dst.close();
    }
    await src.truncate(goodBytes);
    await src.sync();
  } finally {
    await src.close();
  }
  return sidecar;
}

/** FileHandle.write may write fewer bytes than asked; loop until all are written. */
export async function writeAll(handle: { write(b: Buffer, offset: number, length: number): Promise<{ bytesWritten: number }> }, data: Buffer): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await handle.write(data, off, data.length - off);
    if (bytesWritten <= 0) throw new Error('write made no progress');
    off += bytesWritten;
  }
}
