// Test helper: an in-memory TranscriptStore with the JSONL store's link rules, a memory archive; the scripted ChatModel comes from test/support.
import type { Clock, EvidenceArchive, EvidenceSnapshot, IdSource, TranscriptStore } from '../../../src/engine/ports.js';
import { EntrySchema, type Entry, type SessionHeader } from '../../../src/engine/transcript/schema.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';

export class MemoryStore implements TranscriptStore {
  readonly header: SessionHeader = { type: 'session', version: 1, id: 's_test', createdAt: '2025-01-01T00:00:00.000Z', cwd: '/w' };
  readonly tree = new SessionTree();
  readOnly = false;
  readOnlyReason?: string;
  /** Called after each append resolves (tests inject aborts or foreign entries here). */
  afterAppend?: (e: Entry) => void | Promise<void>;

  constructor(entries: readonly Entry[] = []) {
    for (const e of entries) this.tree.add(e);
  }

  entries(): readonly Entry[] {
    return this.tree.entries();
  }

  leafId(): string | null {
    return this.tree.leafId;
  }

  async append(entry: Entry): Promise<void> {
    if (this.readOnly) throw new Error('read-only');
    const e = EntrySchema.parse(entry);
    if (this.tree.has(e.id)) throw new Error(`duplicate ${e.id}`);
    if (e.parentId !== null && !this.tree.has(e.parentId)) throw new Error(`unknown parent ${e.parentId}`);
    this.tree.add(e);
    await this.afterAppend?.(e);
  }

  async close(): Promise<void> {}

  /** Entries of a type, in file order. */
  ofType<T extends Entry['type']>(type: T): Extract<Entry, { type: T }>[] {
    return this.tree.entries().filter((e): e is Extract<Entry, { type: T }> => e.type === type);
  }
}

export class MemoryArchive implements EvidenceArchive {
  readonly saved = new Map<string, EvidenceSnapshot>();
  fail?: Error;
  afterSave?: () => void | Promise<void>;

  async save(snapshot: EvidenceSnapshot): Promise<void> {
    if (this.fail) throw this.fail;
    if (this.saved.has(snapshot.operationId)) throw new Error('immutable');
    this.saved.set(snapshot.operationId, snapshot);
    await this.afterSave?.();
  }

  async load(operationId: string): Promise<EvidenceSnapshot | undefined> {
    return this.saved.get(operationId);
  }

  async deleteAll(): Promise<void> {
    this.saved.clear();
  }
}

export { ScriptedModel } from '../../support/scriptedModel.js';

/** An HTTP-shaped provider error the fault classifier understands. */
export function httpError(status: number, message = `HTTP ${status}`, code?: string): Error {
  return Object.assign(new Error(message), { status, ...(code ? { code, error: { code, message } } : {}) });
}

export function fakeClock(): Clock & { t: number } {
  const c = {
    t: 1_735_689_600_000,
    now: () => c.t,
    async sleep(ms: number): Promise<void> {
      c.t += ms;
    },
  };
  return c;
}

export function seqIds(): IdSource {
  let n = 0;
  return { next: (prefix: string) => `${prefix}${(++n).toString(36).padStart(4, '0')}` };
}
