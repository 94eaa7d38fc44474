// Counts what an import inferred (exit statuses read from result text, file effects read from command text) entry by entry, so a long import need not keep its entries to report it.
import { actionFiles, toolActionsOf } from '../compaction/toolActions.js';
import type { Entry, ToolCall, ToolResultEntry } from '../transcript/schema.js';

interface Contribution {
  readonly exitCode: boolean;
  readonly fileEffect: boolean;
}

/**
 * The same figures as toolActionsOf over every entry at once: each call paired with the last result of its id,
 * wherever it is. Only command calls count, so only they are remembered (their command, not their output); a
 * result that comes before its call (a stray the importer warned about) is kept until the call comes.
 */
export class InferredCounter {
  exitCodes = 0;
  fileEffects = 0;
  /** Calls that may count, by id, with what their latest result contributed. */
  private readonly calls = new Map<string, { readonly call: ToolCall; counted: Contribution | undefined }>();
  private readonly early = new Map<string, ToolResultEntry>();

  add(e: Entry): void {
    if (e.type === 'assistant') {
      for (const call of e.toolCalls) {
        const a = toolActionsOf([{ ...e, toolCalls: [call] }])[0];
        if (a?.kind !== 'command') continue;
        const known = { call, counted: undefined };
        this.calls.set(call.id, known);
        const r = this.early.get(call.id);
        if (r !== undefined) this.count(known, r);
      }
    } else if (e.type === 'tool_result') {
      const known = this.calls.get(e.toolCallId);
      if (known === undefined) this.early.set(e.toolCallId, e);
      else this.count(known, e);
    }
  }

  private count(known: { readonly call: ToolCall; counted: Contribution | undefined }, result: ToolResultEntry): void {
    const a = toolActionsOf([{ type: 'assistant', id: '', parentId: null, timestamp: '', content: '', toolCalls: [known.call] }, result])[0];
    if (a === undefined || !a.result) return;
    const f = actionFiles(a);
    const c: Contribution = {
      // Without a recorded exit code, a command's exitCode is the one its text states: read once, not twice.
      exitCode: a.result.effects?.exitCode === undefined && a.exitCode !== null,
      fileEffect: f.inferred && f.created.length + f.modified.length + f.deleted.length + f.renamed.length + f.read.length > 0,
    };
    // A later result of the same id replaces the earlier one, as in toolActionsOf.
    if (known.counted?.exitCode === true) this.exitCodes--;
    if (known.counted?.fileEffect === true) this.fileEffects--;
    if (c.exitCode) this.exitCodes++;
    if (c.fileEffect) this.fileEffects++;
    known.counted = c;
  }
}
