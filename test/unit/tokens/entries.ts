// Entry builders for the token-accounting tests: a linear branch with ids e1, e2, ... and fixed timestamps.
import type { AssistantEntry, CapsuleEntry, Entry, ImagePart, ToolCall, Usage } from '../../../src/engine/transcript/schema.js';

export const T0 = Date.parse('2026-01-01T00:00:00.000Z');

export class BranchBuilder {
  readonly entries: Entry[] = [];
  #n = 0;

  #base(): { id: string; parentId: string | null; timestamp: string } {
    this.#n++;
    const parentId = this.entries.at(-1)?.id ?? null;
    return { id: `e${this.#n}`, parentId, timestamp: new Date(T0 + this.#n * 1000).toISOString() };
  }

  user(content: string, images?: ImagePart[]): this {
    this.entries.push({ ...this.#base(), type: 'user', content, ...(images ? { images } : {}) });
    return this;
  }

  assistant(content: string, opts: { toolCalls?: ToolCall[]; usage?: Usage; prefixFingerprint?: string } = {}): this {
    const e: AssistantEntry = { ...this.#base(), type: 'assistant', content, toolCalls: opts.toolCalls ?? [] };
    if (opts.usage) e.usage = opts.usage;
    if (opts.prefixFingerprint) e.prefixFingerprint = opts.prefixFingerprint;
    this.entries.push(e);
    return this;
  }

  tool(toolCallId: string, content: string, toolName = 'read_file'): this {
    this.entries.push({ ...this.#base(), type: 'tool_result', toolCallId, toolName, content, isError: false });
    return this;
  }

  system(content: string, mode: 'base' | 'append' = 'append'): this {
    this.entries.push({ ...this.#base(), type: 'system_update', mode, content });
    return this;
  }

  capsule(summary: string, firstKeptEntryId: string | null, opts: Partial<CapsuleEntry> = {}): this {
    this.entries.push({
      ...this.#base(),
      type: 'capsule',
      summary,
      firstKeptEntryId,
      pinnedEntryIds: [],
      tokensBefore: 1000,
      tokensAfter: 100,
      trigger: 'auto_threshold',
      level: 0,
      quality: 'full',
      truncateResults: false,
      checkpointId: `ck_${this.#n}`,
      details: {},
      ...opts,
    });
    return this;
  }

  checkpoint(): this {
    this.entries.push({ ...this.#base(), type: 'checkpoint', checkpointId: `ck_m${this.#n}`, kind: 'milestone' });
    return this;
  }

  get lastId(): string {
    return this.entries.at(-1)?.id ?? '';
  }

  /** Timestamp (ms) of the last entry. */
  get lastTime(): number {
    return Date.parse(this.entries.at(-1)?.timestamp ?? '');
  }
}
