// The parent's ToolHost with the `task` tool added (docs/subagents.md): every other call goes to the workspace tools unchanged.
import { TASK_TOOL_NAME, TASK_TOOL_SCHEMA } from '../../engine/agent/subagentTask.js';
import type { ToolCallContext, ToolHost, ToolResult, ToolSchema } from '../../engine/ports.js';
import type { SubagentRunner } from './subagentRunner.js';

export class TaskToolHost implements ToolHost {
  private lastBase: readonly ToolSchema[] | undefined;
  private list: readonly ToolSchema[] = [];

  constructor(
    /** The tools without `task`: what children are given, and what close() disposes. */
    readonly inner: ToolHost,
    private readonly runner: () => SubagentRunner,
  ) {}

  schemas(): readonly ToolSchema[] {
    const base = this.inner.schemas();
    // The same array while the base list is the same: an identical tool list keeps the prompt cache warm.
    if (base !== this.lastBase) {
      this.lastBase = base;
      this.list = Object.freeze([...base, TASK_TOOL_SCHEMA]);
    }
    return this.list;
  }

  run(name: string, argsJson: string, signal: AbortSignal, call?: ToolCallContext): Promise<ToolResult> {
    if (name === TASK_TOOL_NAME) return this.runner().run(typeof argsJson === 'string' ? argsJson : '', signal, call);
    return this.inner.run(name, argsJson, signal, call);
  }

  /** Waits for every running child to end (before the session file closes). */
  settle(): Promise<void> {
    return this.runner().settle();
  }

  endTurn(): Promise<string | undefined> {
    return this.inner.endTurn?.() ?? Promise.resolve(undefined);
  }
}
