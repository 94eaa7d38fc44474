// Long sessions built synthetically (a typical turn shape, a capsule every 400 entries) and a tree instrumented to count the entries each path visits.
import { writeFile } from 'node:fs/promises';
import type { Entry } from '../../src/engine/transcript/schema.js';
import type { SessionTree } from '../../src/engine/transcript/tree.js';

const LONG_SYSTEM = "You are Capsule, a coding agent working in the user's VS Code workspace. Be precise and brief.";
const WORDS =
  'the a function returns value module test build error file path config update fix import export const let async await promise string number array object index src lib util parse render token cache entry branch capsule'.split(
    ' ',
  );
/** A long session compacts now and then: a capsule keeping the last KEEP entries, then a new epoch base. */
const COMPACT_EVERY = 400;
const KEEP = 100;

/** Deterministic text so runs are comparable, varied enough that the tokenizer's merge cache does not make it free. */
class TextSource {
  #seed = 12345;
  words(n: number): string {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      this.#seed = (Math.imul(this.#seed, 1103515245) + 12345) >>> 0;
      const w = WORDS[this.#seed % WORDS.length] ?? 'x';
      out.push(this.#seed % 7 === 0 ? `${w}${this.#seed % 1000}` : w);
    }
    return out.join(' ');
  }
}

/** Entries of one branch: user, tool call, tool result, answer, …; a capsule and a new epoch base every COMPACT_EVERY entries. */
export class LongSessionGen {
  readonly entries: Entry[] = [];
  readonly #text = new TextSource();
  #n = 0;
  #turn = 0;
  /** The paths the calls named so far: an epoch base records them with its stamps, as Capsule writes it. */
  readonly #touched = new Set<string>();

  #base(): { id: string; parentId: string | null; timestamp: string } {
    this.#n++;
    return { id: `e${this.#n}`, parentId: this.entries.at(-1)?.id ?? null, timestamp: new Date(1_700_000_000_000 + this.#n * 1000).toISOString() };
  }

  #push(e: Entry): Entry {
    this.entries.push(e);
    return e;
  }

  next(): Entry {
    if (this.entries.length > 0 && this.entries.length % COMPACT_EVERY === 0) {
      const keep = this.entries[this.entries.length - KEEP]?.id ?? null;
      this.#push({
        ...this.#base(),
        type: 'capsule',
        summary: this.#text.words(600),
        firstKeptEntryId: keep,
        pinnedEntryIds: [],
        tokensBefore: 5000,
        tokensAfter: 1500,
        trigger: 'auto_threshold',
        level: 0,
        quality: 'full',
        truncateResults: false,
        checkpointId: `ck_${this.#n}`,
        details: {},
      });
      return this.#push({
        ...this.#base(),
        type: 'system_update',
        mode: 'base',
        content: LONG_SYSTEM,
        reason: 'compaction',
        sources: [{ key: 'file:AGENTS.md', hash: 'recorded' }],
        touched: [...this.#touched],
      });
    }
    const k = this.#turn++ % 4;
    const base = this.#base();
    if (k === 1) this.#touched.add(`src/m${this.#n % 97}.ts`);
    const e: Entry =
      k === 0
        ? { ...base, type: 'user', content: this.#text.words(12) }
        : k === 1
          ? {
              ...base,
              type: 'assistant',
              content: this.#text.words(8),
              toolCalls: [{ id: `call_${this.#n}`, name: 'read_file', arguments: `{"path":"src/m${this.#n % 97}.ts"}` }],
            }
          : k === 2
            ? { ...base, type: 'tool_result', toolCallId: `call_${this.#n - 1}`, toolName: 'read_file', content: this.#text.words(40), isError: false }
            : { ...base, type: 'assistant', content: this.#text.words(15), toolCalls: [] };
    return this.#push(e);
  }

  /** Grows the session to at least `n` entries, ending after a whole turn (an answer without calls). */
  grow(n: number): this {
    while (this.entries.length < n || this.#turn % 4 !== 0) this.next();
    return this;
  }
}

/** Writes a session file of about `n` entries (header line first). */
export async function writeLongSession(path: string, n: number, cwd: string): Promise<readonly Entry[]> {
  const gen = new LongSessionGen().grow(n);
  const header = { type: 'session', version: 1, id: 's_long', createdAt: new Date(1_700_000_000_000).toISOString(), cwd };
  const lines = [JSON.stringify(header), ...gen.entries.map((e) => JSON.stringify(e))];
  await writeFile(path, `${lines.join('\n')}\n`);
  return gen.entries;
}

/** What one path cost: entries read by id, walked on a branch, read from the file-order list, or scanned for children. */
export interface Visits {
  total: number;
}

/**
 * Counts every entry a caller reaches through `tree` (by id, on a branch walk, by index of `entries()`, by children()).
 * The methods are replaced on this instance only; `reset()` starts a new count.
 */
export function countVisits(tree: SessionTree): { readonly visits: Visits; reset(): number } {
  const visits: Visits = { total: 0 };
  const get = tree.get.bind(tree);
  const branch = tree.branch.bind(tree);
  const entries = tree.entries.bind(tree);
  const children = tree.children.bind(tree);
  const typeOf = tree.typeOf.bind(tree);
  const parentOf = tree.parentOf.bind(tree);
  const eachLink = tree.eachLink.bind(tree);
  Object.assign(tree, {
    get: (id: string) => {
      visits.total++;
      return get(id);
    },
    branch: (leaf?: string | null) => {
      const b = leaf === undefined ? branch() : branch(leaf);
      visits.total += b.length;
      return b;
    },
    entries: () =>
      new Proxy(entries() as Entry[], {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) visits.total++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      }),
    children: (id: string | null) => {
      visits.total += tree.size;
      return children(id);
    },
    // Reads of an entry's shape alone (its kind, its parent, the links of what was added) are visits too: a walk over
    // kinds is as linear as one over entries.
    typeOf: (id: string) => {
      visits.total++;
      return typeOf(id);
    },
    parentOf: (id: string) => {
      visits.total++;
      return parentOf(id);
    },
    eachLink: (start: number, visit: Parameters<SessionTree['eachLink']>[1]) => {
      const n = eachLink(start, visit);
      visits.total += n;
      return n;
    },
  });
  return {
    visits,
    reset: () => {
      const n = visits.total;
      visits.total = 0;
      return n;
    },
  };
}
