// Makes an imported conversation a valid session before it is written: unanswered calls get "interrupted" results, stray results go.
import { interruptedResult } from './repair.js';
import type { Entry } from './schema.js';
import { SessionTree } from './tree.js';
import { verifySession, type VerifyIssue } from './verify.js';

export interface ImportRepair {
  /** The entries to write, relinked into one chain. */
  readonly entries: readonly Entry[];
  /** One line per change made, for the user. */
  readonly repairs: readonly string[];
  /** Errors verify still finds after the repair; the import must then be refused. */
  readonly errors: readonly VerifyIssue[];
}

/**
 * The repair as a stream: entries in, repaired and relinked entries out to `emit`, one at a time, so a long import
 * never holds its entries. Imported conversations come from other tools and often end mid-exchange or carry results
 * the model never asked for; a session written that way fails `verify` and every request. This keeps what is valid,
 * closes each call left open with an "interrupted" result right after its results, drops results that answer no
 * open call, and reports what it changed. Entries are a linear chain (each the child of the one before), as every
 * importer writes them; what comes out verifies (split pairs and stray results are the only errors such a chain can
 * have, and those are what it fixes).
 */
export class ImportRepairStream {
  readonly repairs: string[] = [];
  private open: Map<string, string> | undefined;
  private lastId: string | null = null;
  private lastTimestamp = '';

  constructor(
    private readonly newId: (prefix: string) => string,
    private readonly emit: (e: Entry) => void,
  ) {}

  private out(e: Entry): void {
    const linked = e.parentId === this.lastId ? e : { ...e, parentId: this.lastId };
    this.lastId = linked.id;
    this.lastTimestamp = linked.timestamp;
    this.emit(linked);
  }

  private close(): void {
    const open = this.open;
    if (open === undefined || open.size === 0) return;
    for (const [id, name] of open)
      this.out({ ...interruptedResult({ id, name, arguments: '' }), id: this.newId('e_'), parentId: null, timestamp: this.lastTimestamp });
    this.repairs.push(`tool call(s) ${[...open.keys()].join(', ')} had no result: recorded as interrupted`);
    this.open = undefined;
  }

  push(e: Entry): void {
    if (e.type === 'tool_result') {
      if (this.open?.delete(e.toolCallId) === true) this.out(e);
      else this.repairs.push(`tool result ${e.toolCallId} answers no open tool call: left out`);
      return;
    }
    if (e.type === 'user' || e.type === 'assistant') this.close();
    this.out(e);
    if (e.type === 'assistant' && e.toolCalls.length > 0) this.open = new Map(e.toolCalls.map((c) => [c.id, c.name]));
  }

  /** Closes the calls the conversation left open. */
  end(): void {
    this.close();
  }
}

/** The repair of entries all in memory, checked with verify (see ImportRepairStream). */
export function repairImported(entries: readonly Entry[], newId: (prefix: string) => string): ImportRepair {
  const chained: Entry[] = [];
  const s = new ImportRepairStream(newId, (e) => chained.push(e));
  for (const e of entries) s.push(e);
  s.end();
  const report = verifySession(SessionTree.from(chained), []);
  return { entries: chained, repairs: s.repairs, errors: report.issues.filter((i) => i.severity === 'error') };
}
