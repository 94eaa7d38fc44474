// Splits a branch's entries into indivisible units for cutting (docs/behaviour.md#cut): a tool call and its results never part.
import type { AssistantEntry, Entry, ToolResultEntry, UserEntry } from '../transcript/schema.js';

export type MessageEntry = UserEntry | AssistantEntry | ToolResultEntry;

/**
 * `tool_exchange`: an assistant entry with tool calls plus the tool results that follow it.
 * `orphan`: tool results with nothing before them to attach to (only in damaged or sliced input).
 */
type UnitKind = 'user' | 'assistant' | 'tool_exchange' | 'orphan';

export interface Unit {
  readonly kind: UnitKind;
  /** Every entry of the unit in branch order, including the non-message entries attached to it. */
  readonly entries: readonly Entry[];
  /** The message entry that opens the unit. */
  readonly head: MessageEntry;
  /** False for a tool exchange that still lacks a result for one of its calls (in progress or cancelled). */
  readonly complete: boolean;
}

export function isMessageEntry(e: Entry): e is MessageEntry {
  return e.type === 'user' || e.type === 'assistant' || e.type === 'tool_result';
}

interface Draft {
  kind: UnitKind;
  entries: Entry[];
  head: MessageEntry;
  pendingCalls: Set<string>;
}

function freeze(d: Draft): Unit {
  return { kind: d.kind, entries: d.entries, head: d.head, complete: d.pendingCalls.size === 0 };
}

/**
 * Units in order. Non-message entries (checkpoint, model_change, system_update, turn_end, ...) join
 * the unit that follows them, so a cut never strands them in front of the tail; trailing ones join
 * the last unit. A tool result always stays with the unit before it, even when its call id does not
 * match (a tail must never start with a result whose call was summarized away).
 */
export function splitUnits(entries: readonly Entry[]): Unit[] {
  const units: Unit[] = [];
  let current: Draft | undefined;
  let loose: Entry[] = [];
  const open = (head: MessageEntry, kind: UnitKind): Draft => {
    if (current) units.push(freeze(current));
    const d: Draft = { kind, entries: [...loose, head], head, pendingCalls: new Set() };
    loose = [];
    return d;
  };
  for (const e of entries) {
    switch (e.type) {
      case 'user':
        current = open(e, 'user');
        break;
      case 'assistant':
        current = open(e, e.toolCalls.length > 0 ? 'tool_exchange' : 'assistant');
        for (const c of e.toolCalls) current.pendingCalls.add(c.id);
        break;
      case 'tool_result':
        if (!current) {
          current = open(e, 'orphan');
        } else {
          current.entries.push(...loose, e);
          loose = [];
          current.pendingCalls.delete(e.toolCallId);
        }
        break;
      default:
        loose.push(e);
    }
  }
  if (current) {
    current.entries.push(...loose);
    units.push(freeze(current));
  }
  return units;
}
