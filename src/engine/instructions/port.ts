// What the agent asks of the outside world about instructions: the sources in force for the work so far.
import type { InstructionSource } from './sources.js';

export interface InstructionRead {
  /** In prompt order: user-level, workspace-wide, folder- and glob-scoped files, the skill index, the mode. */
  readonly sources: readonly InstructionSource[];
  /** One line each, naming the file (too large, binary, a FIFO, a link out of the workspace, an import cycle, bad front matter). */
  readonly warnings: readonly string[];
}

export interface InstructionPort {
  /** `touched`: the paths the agent's calls named so far on this branch, as written in the calls. */
  read(touched: readonly string[]): Promise<InstructionRead>;
  /** A skill's body as of the last read, and where it was found; undefined when there is no such skill (now). */
  skillText?(name: string): { readonly where: string; readonly body: string } | undefined;
}
