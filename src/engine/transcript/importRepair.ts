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
 * Imported conversations come from other tools and often end mid-exchange or carry results the model never asked
 * for; a session written that way fails `verify` and every request. This keeps what is valid, closes each call left
 * open with an "interrupted" result right after its results, drops results that answer no open call, and reports
 * what it changed. Entries are a linear chain (each the child of the one before), as every importer writes them.
 */
export function repairImported(entries: readonly Entry[], newId: (prefix: string) => string): ImportRepair {
  const out: Entry[] = [];
  const repairs: string[] = [];
  let open: { readonly calls: Map<string, string> } | undefined;
  const close = (): void => {
    if (open === undefined || open.calls.size === 0) return;
    for (const [id, name] of open.calls)
      out.push({ ...interruptedResult({ id, name, arguments: '' }), id: newId('e_'), parentId: null, timestamp: out[out.length - 1]?.timestamp ?? '' });
    repairs.push(`tool call(s) ${[...open.calls.keys()].join(', ')} had no result: recorded as interrupted`);
    open = undefined;
  };
  for (const e of entries) {
    if (e.type === 'tool_result') {
      if (open?.calls.delete(e.toolCallId) === true) out.push(e);
      else repairs.push(`tool result ${e.toolCallId} answers no open tool call: left out`);
      continue;
    }
    if (e.type === 'user' || e.type === 'assistant') close();
    out.push(e);
    if (e.type === 'assistant' && e.toolCalls.length > 0) open = { calls: new Map(e.toolCalls.map((c) => [c.id, c.name])) };
  }
  close();
  const chained = out.map((e, i): Entry => ({ ...e, parentId: i === 0 ? null : (out[i - 1]?.id ?? null) }));
  const report = verifySession(SessionTree.from(chained), []);
  return { entries: chained, repairs, errors: report.issues.filter((i) => i.severity === 'error') };
}
