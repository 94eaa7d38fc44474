// The stdio transport of an MCP server, with the server in its own process group so that stopping it stops everything it started (no orphans).
import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { COMMAND_TAG_VAR, newCommandTag } from '../tools/processGroups.js';

/** Bytes of stderr kept for error messages: the end of it says why a server died. */
const STDERR_TAIL_BYTES = 4096;
/** One message may be this large; bigger (a runaway server) closes the connection. Results are capped after decoding. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** After SIGTERM the group gets this long before SIGKILL. */
const TERM_GRACE_MS = 2000;

export interface StdioSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** The last bytes a server wrote to stderr. */
export class StderrTail {
  private text = '';
  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-STDERR_TAIL_BYTES);
  }
  /** The last few lines, trimmed, for a one-line message. */
  lines(max = 5): string {
    return this.text.trim().split('\n').slice(-max).join(' | ').slice(-600);
  }
  clear(): void {
    this.text = '';
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  try {
    // A negative pid is the whole group (POSIX); Windows has no groups, so the process alone.
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly spec: StdioSpec,
    readonly stderr: StderrTail,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child !== undefined) throw new Error('already started');
    return new Promise((resolveStart, reject) => {
      const child = spawn(this.spec.command, [...this.spec.args], {
        // The tag lets a later run find and stop this server's processes if Capsule itself was killed (stopLeftovers).
        env: { ...getDefaultEnvironment(), ...this.spec.env, [COMMAND_TAG_VAR]: newCommandTag().value },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        // Its own process group: the server's children die with it when the group is signalled.
        detached: process.platform !== 'win32',
        windowsHide: true,
        ...(this.spec.cwd === undefined ? {} : { cwd: this.spec.cwd }),
      });
      this.child = child;
      this.exited = new Promise((r) => child.once('close', () => r()));
      child.once('error', (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once('spawn', () => resolveStart());
      child.once('close', () => {
        // The group may still hold children the server left behind.
        signalGroup(child, 'SIGKILL');
        if (this.child === child) this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (err) => this.onerror?.(err));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
          for (;;) {
            const m = this.buffer.readMessage();
            if (m === null) break;
            this.onmessage?.(m);
          }
        } catch (err) {
          this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin === null || stdin.destroyed) throw new Error('Not connected');
    const json = serializeMessage(message);
    if (!stdin.write(json)) await new Promise<void>((r) => stdin.once('drain', () => r()));
  }

  /** Ends stdin, then SIGTERM to the group, then SIGKILL; resolves when the server has exited. */
  async close(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    const exited = this.exited;
    const wait = (ms: number): Promise<boolean> => Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // ignore
    }
    signalGroup(child, 'SIGTERM');
    if (!(await wait(TERM_GRACE_MS))) {
      signalGroup(child, 'SIGKILL');
      await wait(TERM_GRACE_MS);
    }
    signalGroup(child, 'SIGKILL');
    this.buffer.clear();
  }
}
