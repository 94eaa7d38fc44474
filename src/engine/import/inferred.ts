// Counts what an import inferred (exit statuses read from result text, file effects read from command text) entry by entry, so a long import need not keep its entries to report it.
import { actionFiles, toolActionsOf, toolKind, type ToolActionKind } from '../compaction/toolActions.js';
import { shellEffects } from '../effects/shellEffects.js';
import type { Entry, ToolCall, ToolResultEntry } from '../transcript/schema.js';
import { contentJsonOf, statedExitCode } from './jsonString.js';

interface Contribution {
  readonly exitCode: boolean;
  readonly fileEffect: boolean;
}

interface Known {
  readonly call: ToolCall;
  /** Whether the command's text names files at all (without that, no result can give it file effects). */
  readonly namesFiles: boolean;
  counted: Contribution | undefined;
}

function namesFilesUncached(command: string): boolean {
  const s = shellEffects(command);
  return s.created.length + s.modified.length + s.deleted.length + s.renamed.length + s.read.length > 0;
}

const NOT_A_COMMAND = Symbol('not a command');

/** `<name length>:<name><arguments>` → the command of such a call, undefined for a command call naming none, NOT_A_COMMAND for other calls. */
function commandOfUncached(key: string): string | undefined | typeof NOT_A_COMMAND {
  const cut = key.indexOf(':');
  const end = cut + 1 + Number(key.slice(0, cut));
  const call: ToolCall = { id: 'c', name: key.slice(cut + 1, end), arguments: key.slice(end) };
  const a = toolActionsOf([{ type: 'assistant', id: '', parentId: null, timestamp: '', content: '', toolCalls: [call] }])[0];
  return a?.kind === 'command' ? a.command : NOT_A_COMMAND;
}

/** Answers kept for the commands and tool names seen last (sessions repeat them: the same test run, the same few tools); bounded. */
const MEMO_SIZE = 512;
const MEMO_KEY_MAX = 4096;

function memo<T>(f: (key: string) => T): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    if (key.length > MEMO_KEY_MAX) return f(key);
    const hit = known.get(key);
    if (hit !== undefined || known.has(key)) return hit as T;
    const v = f(key);
    if (known.size >= MEMO_SIZE) known.clear();
    known.set(key, v);
    return v;
  };
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
  private readonly calls = new Map<string, Known>();
  /** Ids of the calls seen that cannot count (not commands): their results need not be kept. */
  private readonly others = new Set<string>();
  private readonly early = new Map<string, ToolResultEntry>();
  private readonly kindOf = memo<ToolActionKind>(toolKind);
  private readonly namesFiles = memo(namesFilesUncached);
  /** The command the ledger reads from a call, keyed by its name and arguments (all the action reads for it). */
  private readonly commandOf = memo(commandOfUncached);

  add(e: Entry): void {
    if (e.type === 'assistant') {
      for (const call of e.toolCalls) {
        // Only a tool named like a command is one (the ledger's kind reads the arguments only to tell reads from edits).
        const command = this.kindOf(call.name) === 'command' ? this.commandOf(`${call.name.length}:${call.name}${call.arguments}`) : NOT_A_COMMAND;
        if (command === NOT_A_COMMAND) {
          this.others.add(call.id);
          continue;
        }
        const known: Known = { call, namesFiles: command !== undefined && this.namesFiles(command), counted: undefined };
        this.calls.set(call.id, known);
        const r = this.early.get(call.id);
        if (r !== undefined) this.count(known, r);
      }
    } else if (e.type === 'tool_result') {
      const known = this.calls.get(e.toolCallId);
      if (known !== undefined) this.count(known, e);
      // A result of a call that cannot count is not kept (call ids are unique in an import: the builder renames reused ones).
      // A passed-through result is kept as a copy with its text (jsonString.ts), so it does not hold the read buffer its bytes are in.
      else if (!this.others.has(e.toolCallId)) this.early.set(e.toolCallId, contentJsonOf(e) === undefined ? e : { ...e });
    }
  }

  private count(known: Known, result: ToolResultEntry): void {
    const c: Contribution = {
      exitCode: result.effects?.exitCode === undefined && statedExitCode(result) !== null,
      fileEffect: this.fileEffect(known, result),
    };
    // A later result of the same id replaces the earlier one, as in toolActionsOf.
    if (known.counted?.exitCode === true) this.exitCodes--;
    if (known.counted?.fileEffect === true) this.fileEffects--;
    if (c.exitCode) this.exitCodes++;
    if (c.fileEffect) this.fileEffects++;
    known.counted = c;
  }

  /**
   * Whether the ledger reads file effects from the command's text. Without recorded effects that needs a command
   * naming files and a result saying it succeeded; the second reads the whole output, so it is asked only when the
   * first holds (the answer is the ledger's own, from actionFiles).
   */
  private fileEffect(known: Known, result: ToolResultEntry): boolean {
    if (result.effects === undefined && !known.namesFiles) return false;
    const a = toolActionsOf([{ type: 'assistant', id: '', parentId: null, timestamp: '', content: '', toolCalls: [known.call] }, result])[0];
    if (a?.result === undefined) return false;
    const f = actionFiles(a);
    return f.inferred && f.created.length + f.modified.length + f.deleted.length + f.renamed.length + f.read.length > 0;
  }
}
