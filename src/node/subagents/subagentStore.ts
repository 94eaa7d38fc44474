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
  /** The parent's own leaf (a child's entries never move it). */
  leafId(): string | null;
  append(entry: Entry): Promise<void>;
}

/**
 * The parent's answer holding tool call `callId`: found walking back from the parent's leaf through the current turn
 * (the call is its latest answer's), so a long history is not read; the whole file is searched only when it is not there.
 */
export function anchorOf(store: ParentStore, callId: string): Entry | undefined {
  const holds = (e: Entry | undefined): boolean => e?.type === 'assistant' && e.subagent === undefined && e.toolCalls.some((c) => c.id === callId);
  for (let id = store.leafId(), steps = 0; id !== null && steps < 10_000; steps++) {
    const e = store.get(id);
    if (e === undefined || holds(e)) return e;
    if (e.type === 'user') break;
    id = e.parentId;
  }
  return [...store.entries()].reverse().find(holds);
}

/**
 * The child's branch starts at its own root (parentId null), so the child's model input holds only what it did;
 * the parent's leaf never moves for it (SessionTree ignores marked entries for the leaf).
 */
export class SubagentStore implements TranscriptStore {
  private leaf: string | null = null;
  private first = true;
  readonly #written: Entry[] = [];

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

  /** What this child appended, in order (no read of the parent's file). */
  get written(): readonly Entry[] {
    return this.#written;
  }

  /** The child's id (`sa_…`). */
  get id(): string {
    return this.ref.id;
  }

  async append(entry: Entry): Promise<void> {
    const { description, ...rest } = this.ref;
    // The description travels once, on the first entry; every entry names the child and the parent's call.
    const subagent: SubagentRef = this.first && description !== undefined ? this.ref : rest;
    const marked = { ...entry, subagent };
    await this.parent.append(marked);
    this.#written.push(marked);
    this.first = false;
    this.leaf = entry.type === 'leaf' ? entry.targetId : entry.id;
  }

  async close(): Promise<void> {
    // The session store belongs to the parent.
  }
}
