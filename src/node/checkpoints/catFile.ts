// One `git cat-file --batch` per chat that stays running: pre-images read from the user's objects cost a pipe round trip, not a git process each.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { GitError } from './gitCommand.js';

interface Request {
  readonly ids: readonly string[];
  readonly out: Map<string, Buffer>;
  readonly done: (err?: Error) => void;
}

/**
 * Answers are read in the order asked (git answers each line in turn): `<id> blob <size>\n<bytes>\n`, or
 * `<id> missing\n`. Requests are sent one at a time, so every byte that arrives belongs to the one in flight. A git
 * that fails, exits or takes longer than `timeoutMs` is stopped and its request rejected; the next request starts a
 * new one. The process is not kept alive for the event loop while nothing waits for it (a CLI can exit).
 */
export class CatFileBatch {
  private child: ChildProcessWithoutNullStreams | undefined;
  private buf: Buffer = Buffer.alloc(0);
  private current: { readonly req: Request; left: string[]; timer: NodeJS.Timeout } | undefined;
  private readonly queue: Request[] = [];

  constructor(
    private readonly start: () => ChildProcessWithoutNullStreams,
    private readonly timeoutMs: number,
  ) {}

  /** The blobs among `ids` that git has; ids it lacks (or that are not blobs) are left out. */
  get(ids: readonly string[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    if (ids.length === 0) return Promise.resolve(out);
    return new Promise((resolve, reject) => {
      this.queue.push({ ids, out, done: (err) => (err === undefined ? resolve(out) : reject(err)) });
      this.next();
    });
  }

  /** Ends the process (the chat is closed); a later request starts another. */
  close(): void {
    this.stop(new GitError('git cat-file: closed'));
  }

  private next(): void {
    if (this.current !== undefined) return;
    const req = this.queue.shift();
    if (req === undefined) {
      this.hold(false);
      return;
    }
    let child: ChildProcessWithoutNullStreams;
    try {
      child = this.child ?? this.spawn();
    } catch (err) {
      req.done(new GitError(`git could not be started: ${err instanceof Error ? err.message : String(err)}`));
      return this.next();
    }
    this.hold(true);
    const timer = setTimeout(() => this.stop(new GitError(`git cat-file: took longer than ${Math.round(this.timeoutMs / 1000)} s`)), this.timeoutMs);
    this.current = { req, left: [...req.ids], timer };
    child.stdin.write(`${req.ids.join('\n')}\n`);
  }

  private spawn(): ChildProcessWithoutNullStreams {
    const child = this.start();
    this.child = child;
    this.buf = Buffer.alloc(0);
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      if (this.child === child) this.read(b);
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
    const gone = (why: string): void => {
      if (this.child === child) this.stop(new GitError(`git cat-file: ${err.split('\n').find((l) => l.trim() !== '') ?? why}`));
    };
    child.on('error', (e) => gone(e.message));
    child.on('close', (code) => gone(`exit code ${code ?? 'none'}`));
    child.stdin.on('error', () => undefined);
    return child;
  }

  /** Parses what has arrived for the request in flight; finishes it once every id is answered. */
  private read(b: Buffer): void {
    this.buf = this.buf.length === 0 ? b : Buffer.concat([this.buf, b]);
    const cur = this.current;
    if (cur === undefined) return this.stop(new GitError('git cat-file: output nobody asked for'));
    while (cur.left.length > 0) {
      const nl = this.buf.indexOf(10);
      if (nl < 0) return;
      const [id, type, size] = this.buf.subarray(0, nl).toString('latin1').split(' ');
      if (id === undefined || id !== cur.left[0]) return this.stop(new GitError(`git cat-file: answer for ${String(id)}, not ${String(cur.left[0])}`));
      if (type === 'missing' || type === 'ambiguous' || size === undefined) {
        this.buf = this.buf.subarray(nl + 1);
        cur.left.shift();
        continue;
      }
      const n = Number(size);
      if (this.buf.length < nl + 1 + n + 1) return;
      if (type === 'blob') cur.req.out.set(id, Buffer.from(this.buf.subarray(nl + 1, nl + 1 + n)));
      this.buf = this.buf.subarray(nl + 1 + n + 1);
      cur.left.shift();
    }
    clearTimeout(cur.timer);
    this.current = undefined;
    cur.req.done();
    this.next();
  }

  /** Stops the process and fails the request in flight with `err` (queued ones then go to a new process). */
  private stop(err: Error): void {
    const child = this.child;
    this.child = undefined;
    this.buf = Buffer.alloc(0);
    child?.kill('SIGKILL');
    const cur = this.current;
    this.current = undefined;
    if (cur !== undefined) {
      clearTimeout(cur.timer);
      cur.req.done(err);
    }
    if (err.message === 'git cat-file: closed') {
      for (const r of this.queue.splice(0)) r.done(err);
      return;
    }
    this.next();
  }

  /** Keeps the event loop alive only while a request waits for git. */
  private hold(on: boolean): void {
    const c = this.child;
    if (c === undefined) return;
    for (const s of [c.stdin, c.stdout, c.stderr] as const) {
      const h = s as unknown as { ref?: () => void; unref?: () => void };
      if (on) h.ref?.();
      else h.unref?.();
    }
    if (on) c.ref();
    else c.unref();
  }
}
