// `capsule chat` prints each subagent's progress indented under the parent's task line: its tools, compactions and end (docs/subagents.md#seeing-them).
import type { AgentEvent } from '../engine/agent/agentEvents.js';
import type { SubagentEvent } from '../node/subagents/subagentRunner.js';

/** What prints one agent's events as lines (chat's EventPrinter). */
export interface LinePrinter {
  handle(e: AgentEvent): void;
}

const INDENT = '    ';

/** One printer per child, so its lines stay whole when children run at once; its streamed text is not printed (the parent gets the answer). */
export function subagentPrinter(out: (s: string) => void, printer: (out: (s: string) => void) => LinePrinter): (e: SubagentEvent) => void {
  const printers = new Map<string, LinePrinter>();
  return (e) => {
    if (e.type === 'subagent_start') {
      out(`${INDENT}[subagent ${e.id}] ${e.description}: started`);
      printers.set(
        e.id,
        printer((line) => out(`${INDENT}[${e.id}] ${line}`)),
      );
      return;
    }
    if (e.type === 'subagent_end') {
      printers.delete(e.id);
      const cost = `${e.requests} request${e.requests === 1 ? '' : 's'}, ${e.tokens.toLocaleString('en-US')} tokens`;
      out(`${INDENT}[subagent ${e.id}] ${e.description}: ${e.status} (${cost})${e.error === undefined ? '' : `: ${e.error.split('\n')[0] ?? ''}`}`);
      return;
    }
    const ev = e.event;
    if (ev.type === 'text_delta' || ev.type === 'assistant_end' || ev.type === 'turn_end' || ev.type === 'turn_start') return;
    printers.get(e.id)?.handle(ev);
  };
}
