// Test helper: builds a linear session branch of typed entries with chosen token sizes per entry.
import type { CapsuleEntry, Entry, ToolCall } from '../../../src/engine/transcript/schema.js';

export interface CallSpec {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>> | string;
  /** The tool result text; omit `result` entirely with `noResult`. */
  readonly result?: string;
  readonly isError?: boolean;
  readonly noResult?: boolean;
  readonly resultTokens?: number;
}

export class SessionBuilder {
  readonly entries: Entry[] = [];
  readonly tokens = new Map<string, number>();
  private seq = 0;
  private turn = 0;
  currentTurnId: string | undefined;

  private nextId(prefix: string): string {
    this.seq++;
    return `${prefix}${this.seq}`;
  }

  private push<E extends Entry>(e: E, tokens: number): E {
    this.entries.push(e);
    this.tokens.set(e.id, tokens);
    return e;
  }

  private base(prefix: string): { id: string; parentId: string | null; timestamp: string } {
    const parentId = this.entries[this.entries.length - 1]?.id ?? null;
    return { id: this.nextId(prefix), parentId, timestamp: `2025-01-01T00:00:${String(this.seq % 60).padStart(2, '0')}.000Z` };
  }

  /** A user message starting a new turn. */
  user(content: string, tokens = 10): Entry {
    this.turn++;
    this.currentTurnId = `t${this.turn}`;
    return this.push({ ...this.base('u'), type: 'user', content, turnId: this.currentTurnId }, tokens);
  }

  assistant(content: string, tokens = 10, calls: readonly CallSpec[] = []): Entry[] {
    const toolCalls: ToolCall[] = calls.map((c) => ({
      id: this.nextId('call'),
      name: c.name,
      arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args),
    }));
    const out: Entry[] = [
      this.push({ ...this.base('a'), type: 'assistant', content, toolCalls, ...(this.currentTurnId ? { turnId: this.currentTurnId } : {}) }, tokens),
    ];
    calls.forEach((c, i) => {
      const call = toolCalls[i];
      if (!call || c.noResult) return;
      out.push(
        this.push(
          {
            ...this.base('r'),
            type: 'tool_result',
            toolCallId: call.id,
            toolName: c.name,
            content: c.result ?? 'ok',
            isError: c.isError ?? false,
            ...(this.currentTurnId ? { turnId: this.currentTurnId } : {}),
          },
          c.resultTokens ?? 10,
        ),
      );
    });
    return out;
  }

  checkpoint(): Entry {
    return this.push({ ...this.base('ck'), type: 'checkpoint', checkpointId: `ck_${this.seq}`, kind: 'auto' }, 0);
  }

  turnEnd(): Entry {
    return this.push({ ...this.base('te'), type: 'turn_end', turnId: this.currentTurnId ?? 't0', status: 'completed' }, 0);
  }

  capsule(opts: { firstKeptEntryId: string | null; pinnedEntryIds?: string[]; summary?: string; details?: Record<string, unknown> }): CapsuleEntry {
    return this.push(
      {
        ...this.base('c'),
        type: 'capsule',
        summary: opts.summary ?? '## Goal\nprevious goal',
        firstKeptEntryId: opts.firstKeptEntryId,
        pinnedEntryIds: opts.pinnedEntryIds ?? [],
        tokensBefore: 1000,
        tokensAfter: 100,
        trigger: 'auto_threshold',
        level: 0,
        quality: 'full',
        truncateResults: false,
        checkpointId: 'ck_prev',
        details: opts.details ?? {},
      },
      100,
    );
  }

  tokensOf = (e: Entry): number => this.tokens.get(e.id) ?? 0;
}

/** The seed for property tests: CAPSULE_PBT_SEED when set (to replay a failure), else the clock. Printed either way. */
export function pbtSeed(name: string): number {
  const fromEnv = process.env['CAPSULE_PBT_SEED'];
  const seed = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : Date.now() % 2 ** 31;
  console.log(`[${name}] fast-check seed ${seed} (replay with CAPSULE_PBT_SEED=${seed})`);
  return seed;
}
