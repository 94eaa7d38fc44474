// A child's view of the session store (docs/session-format.md#subagents): the same file, its own leaf, every entry marked with the child's id.
import type { TranscriptStore } from '../../engine/ports.js';
import type { Entry, SessionHeader } from '../../engine/transcript/schema.js';
import type { SubagentRef } from '../../engine/transcript/subagentRef.js';

/** The parts of the session store a child writes through. */
export interface ParentStore {
  readonly header: SessionHeader;
  readonly readOnly: boolean;
  readonly readOnlyReason?: string;
  entries(): readonly Entry[];
  get(id: string): Entry | undefined;
  append(entry: Entry): Promise<void>;
}

/**
 * The child's branch starts at its own root (parentId null), so the child's model input holds only what it did;
 * the parent's leaf never moves for it (SessionTree ignores marked entries for the leaf).
 */
export class SubagentStore implements TranscriptStore {
  private leaf: string | null = null;
  private first = true;

  constructor(
    private readonly parent: ParentStore,
    private readonly ref: SubagentRef,
  ) {}

  get header(): SessionHeader {
    return this.parent.header;
  }

  get readOnly(): boolean {
    return this.parent.readOnly;
  }

  get readOnlyReason(): string | undefined {
    return this.parent.readOnlyReason;
  }

  entries(): readonly Entry[] {
    return this.parent.entries();
  }

  get(id: string): Entry | undefined {
    return this.parent.get(id);
  }

  leafId(): string | null {
    return this.leaf;
  }

  /** The ids of what this child appended, in order. */
  get id(): string {
    return this.ref.id;
  }

  async append(entry: Entry): Promise<void> {
    const { description, ...rest } = this.ref;
    // The description travels once, on the first entry; every entry names the child and the parent's call.
    const subagent: SubagentRef = this.first && description !== undefined ? this.ref : rest;
    await this.parent.append({ ...entry, subagent });
    this.first = false;
    this.leaf = entry.type === 'leaf' ? entry.targetId : entry.id;
  }

  async close(): Promise<void> {
    // The session store belongs to the parent.
  }
}
