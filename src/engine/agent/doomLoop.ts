// Doom-loop detection: the same tool call (name + arguments) in three requests in a row stops the turn and asks the user.
import type { ToolCall } from '../transcript/schema.js';

/** This many identical requests in a row are a loop; two can be a legitimate retry. */
export const DOOM_LOOP_REPEATS = 3;

/** Arguments compared as parsed JSON with sorted keys, so `{"a":1,"b":2}` and `{"b":2, "a":1}` are the same call. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = canonical((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

function argumentsKey(args: string): string {
  try {
    return JSON.stringify(canonical(JSON.parse(args)));
  } catch {
    return args.trim(); // malformed arguments are compared as the model wrote them
  }
}

/** The signature of one request's tool calls: every call's name and canonical arguments, in order. */
function callsSignature(calls: readonly ToolCall[]): string {
  return JSON.stringify(calls.map((c) => [c.name, argumentsKey(c.arguments)]));
}

export function doomLoopMessage(call: ToolCall, repeats: number): string {
  const args = call.arguments.replace(/\s+/g, ' ').trim();
  const shown = args.length > 120 ? `${args.slice(0, 119)}…` : args;
  return (
    `The turn was stopped: the model called ${call.name} ${shown} ${repeats} times in a row with the same arguments ` +
    '(a loop). Continue if it should try again, or tell it what to do differently.'
  );
}

/** Remembers the signatures of a turn's requests; `note` says whether the latest one completes a loop. */
export class DoomLoopDetector {
  private last: string | undefined;
  private repeats = 0;

  /** Records a request's tool calls; true when it is the DOOM_LOOP_REPEATS-th identical one in a row. */
  note(calls: readonly ToolCall[]): boolean {
    if (calls.length === 0) {
      this.last = undefined;
      this.repeats = 0;
      return false;
    }
    const sig = callsSignature(calls);
    this.repeats = sig === this.last ? this.repeats + 1 : 1;
    this.last = sig;
    return this.repeats >= DOOM_LOOP_REPEATS;
  }

  get count(): number {
    return this.repeats;
  }
}
