// Checkpoint entries of the agent and the user (docs/behaviour.md#rewind); during a tool batch they wait until every result is written.
import type { TriggerState } from '../compaction/triggers.js';
import type { IdSource, TranscriptStore } from '../ports.js';
import type { CheckpointEntry, Entry } from '../transcript/schema.js';
import { unansweredAtLeaf } from '../transcript/repair.js';

type Pending = { readonly checkpointId: string; readonly kind: CheckpointEntry['kind']; readonly note?: string };

export interface CheckpointBatchDeps {
  readonly store: Pick<TranscriptStore, 'append'>;
  readonly ids: IdSource;
  readonly triggers: TriggerState;
  readonly entryBase: () => { id: string; parentId: string | null; timestamp: string };
  readonly sinceLastAnswer: () => readonly Entry[];
}

export class CheckpointBatch {
  /** Set while a tool batch runs: the agent's checkpoint tool lands after the batch, never between a call and its results. */
  private pending: Pending[] | undefined;

  constructor(private readonly deps: CheckpointBatchDeps) {}

  /** milestone and plan_pivot record their compaction intent (docs/behaviour.md#triggers). */
  async record(kind: CheckpointEntry['kind'], note?: string): Promise<string> {
    const checkpointId = this.deps.ids.next('ck_');
    if (this.pending !== undefined) {
      this.pending.push({ checkpointId, kind, ...(note === undefined ? {} : { note }) });
      return checkpointId;
    }
    return this.append(checkpointId, kind, note);
  }

  begin(): void {
    this.pending = [];
  }

  /** The checkpoints asked for during a batch, now that every result is written. */
  async flush(force = false): Promise<void> {
    // A cancelled batch leaves calls open until the turn's end answers them; the checkpoints wait until then.
    if (!force && unansweredAtLeaf(this.deps.sinceLastAnswer()).length > 0) return;
    const due = this.pending ?? [];
    this.pending = undefined;
    for (const c of due) await this.append(c.checkpointId, c.kind, c.note);
  }

  private async append(checkpointId: string, kind: CheckpointEntry['kind'], note?: string): Promise<string> {
    const entry: CheckpointEntry = { ...this.deps.entryBase(), type: 'checkpoint', checkpointId, kind, ...(note === undefined ? {} : { note }) };
    await this.deps.store.append(entry);
    if (kind === 'milestone' || kind === 'plan_pivot') this.deps.triggers.recordIntent(kind, checkpointId);
    return checkpointId;
  }
}
