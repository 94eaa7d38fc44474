// Shared helpers for the workspace-tool tests: a temp workspace with a prefix-sharing sibling outside it, and a host that records approvals.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ToolResult } from '../../../src/engine/ports.js';
import type { ApprovalDecision, ApprovalRequest, ToolLimits } from '../../../src/node/tools/types.js';
import { WorkspaceToolHost } from '../../../src/node/tools/workspaceToolHost.js';
import type { WorkspaceToolHostOptions } from '../../../src/node/tools/workspaceToolHost.js';

export interface Workspace {
  /** The workspace root. */
  readonly ws: string;
  /** A sibling folder whose name starts with the workspace's name: `/tmp/x/ws-evil` next to `/tmp/x/ws`. */
  readonly outside: string;
  readonly base: string;
}

export async function workspace(t: { after(fn: () => Promise<void>): void }): Promise<Workspace> {
  const base = await mkdtemp(join(tmpdir(), 'capsule-tools-'));
  t.after(() => rm(base, { recursive: true, force: true, maxRetries: 10 }));
  const ws = join(base, 'ws');
  const outside = join(base, 'ws-evil');
  await mkdir(ws);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'TOP SECRET\n');
  return { ws, outside, base };
}

/** Writes files (creating folders) under `root`. */
export async function files(root: string, contents: Readonly<Record<string, string | Buffer>>): Promise<void> {
  for (const [rel, body] of Object.entries(contents)) {
    const p = join(root, rel);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, body);
  }
}

export interface TestHost {
  readonly host: WorkspaceToolHost;
  /** Every approval request shown to the "user", in order. */
  readonly asked: ApprovalRequest[];
  /** What the model sees of a call: its text and error flag. */
  call(name: string, args: Readonly<Record<string, unknown>> | string, signal?: AbortSignal): Promise<ToolResult>;
  /** The whole result, including the effects recorded on the transcript. */
  run(name: string, args: Readonly<Record<string, unknown>> | string, signal?: AbortSignal): Promise<ToolResult>;
}

export interface TestHostOptions extends Partial<Omit<WorkspaceToolHostOptions, 'limits' | 'trusted' | 'approve'>> {
  readonly approve?: boolean | ((req: ApprovalRequest) => Promise<boolean | ApprovalDecision>);
  readonly trusted?: boolean;
  readonly limits?: Partial<ToolLimits>;
}

export function makeHost(ws: string, opts: TestHostOptions = {}): TestHost {
  const asked: ApprovalRequest[] = [];
  const decide = opts.approve ?? true;
  const host = new WorkspaceToolHost({
    ...opts,
    roots: opts.roots ?? [ws],
    trusted: () => opts.trusted ?? true,
    approve: async (req) => {
      asked.push(req);
      return typeof decide === 'boolean' ? decide : decide(req);
    },
  });
  const run = (name: string, args: Readonly<Record<string, unknown>> | string, signal?: AbortSignal): Promise<ToolResult> =>
    host.run(name, typeof args === 'string' ? args : JSON.stringify(args), signal ?? new AbortController().signal);
  return {
    host,
    asked,
    run,
    call: async (name, args, signal) => {
      const { isError, content } = await run(name, args, signal);
      return { isError, content };
    },
  };
}
/** A process that exited but was not reaped yet (a zombie) counts as dead. */
export async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat !== undefined && !/^\d+ \(.*\) Z/.test(stat);
}

/** SIGKILL is delivered asynchronously: wait (bounded) for the process to be gone rather than racing the kernel. */
export async function diesSoon(pid: number): Promise<boolean> {
  for (let i = 0; i < 500; i++) {
    if (!(await alive(pid))) return true;
    await sleep(10);
  }
  return false;
}
