// Test helper: a FileSnapshots on a temp workspace with a hand-moved "newest entry", so changes can be placed at moments.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FileSnapshots } from '../../../src/node/snapshots/fileSnapshots.js';
import { applyRestore, planRestore, type RestorePlan } from '../../../src/node/snapshots/restore.js';
import { executeCommand } from '../../../src/node/tools/runCommand.js';
import { DEFAULT_TOOL_LIMITS } from '../../../src/node/tools/types.js';
import { CommandTracker } from '../../../src/node/tools/processGroups.js';

/** A timeline of moments m0, m1, …: a change made while moment k is the newest is "after m0..mk". */
export class Timeline {
  readonly snapshots: FileSnapshots;
  private moment = 0;

  constructor(
    readonly ws: string,
    storeDir: string,
    limits: ConstructorParameters<typeof FileSnapshots>[0]['limits'] = {},
    keyFile = join(dirname(storeDir), 'snapshot.key'),
  ) {
    // The key lives beside the store, outside the workspace, as the user-level one does.
    this.snapshots = new FileSnapshots({ dir: storeDir, roots: [ws], leaf: () => `m${this.moment}`, limits, keyFile });
  }

  /** The same store read afresh (as the next process would), at the same moment. */
  reopen(keyFile?: string): Timeline {
    const tl = new Timeline(this.ws, dirname(this.snapshots.log.file), this.snapshots.limits, keyFile);
    tl.moment = this.moment;
    return tl;
  }

  /** Starts the next moment and returns its id. */
  next(): string {
    this.moment++;
    return `m${this.moment}`;
  }

  get now(): string {
    return `m${this.moment}`;
  }

  position(id: string | null): number {
    return id === null ? -1 : Number(id.slice(1));
  }

  /** An agent write of `rel` (as write_file does it, around the capture). */
  write(rel: string, content: string | Uint8Array): Promise<void> {
    const p = join(this.ws, rel);
    return this.snapshots.aroundWrite(p, async () => {
      await mkdir(dirname(p), { recursive: true });
      await writeFile(p, content);
    });
  }

  /** A shell command in the workspace, around the capture. */
  async command(cmd: string): Promise<void> {
    const r = await this.snapshots.aroundCommand(() =>
      executeCommand(cmd, this.ws, 10_000, DEFAULT_TOOL_LIMITS, new AbortController().signal, { tracker: new CommandTracker(), secrets: [] }),
    );
    if (r.code !== 0) throw new Error(`${cmd} failed with ${String(r.code)}: ${r.output}`);
  }

  plan(moment: string): Promise<RestorePlan> {
    return planRestore(this.snapshots, (id) => this.position(id), this.position(moment));
  }

  async restore(moment: string, overwriteOutside = false): Promise<Awaited<ReturnType<typeof applyRestore>>> {
    const plan = await this.plan(moment);
    this.next();
    return applyRestore(this.snapshots, plan, { overwriteOutside, leaf: this.now });
  }
}
