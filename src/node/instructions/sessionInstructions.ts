// How a session is given its instructions: the options, the port and tool layer built from them, the mode restored from the transcript, and the per-file token report of /budget and /skills.
import { isChatMode, modeOfStamps, type ChatMode } from '../../engine/instructions/mode.js';
import { stampsInForce } from '../../engine/instructions/update.js';
import type { ToolHost } from '../../engine/ports.js';
import type { Entry } from '../../engine/transcript/schema.js';
import type { InstructionFamily } from './instructionFiles.js';
import { InstructionToolHost } from './instructionTools.js';
import { WorkspaceInstructions, type InstructionBudget } from './workspaceInstructions.js';

export interface InstructionOptions {
  readonly families?: readonly InstructionFamily[];
  readonly skills?: boolean;
  /** Restricted Mode: nothing is read. */
  readonly restricted?: () => boolean;
  /** ~/.capsule by default; null for none (tests). */
  readonly userDir?: string | null;
  /** The mode to start in; default: the one the transcript recorded, else Agent. */
  readonly mode?: ChatMode;
  readonly maxWindowShare?: number;
  readonly skillReloadTokens?: number;
  /** Tools besides the built-in read-only ones that Ask mode allows. */
  readonly readOnlyTool?: (name: string) => boolean;
}

export interface SessionInstructions {
  readonly port: WorkspaceInstructions;
  readonly tools: InstructionToolHost;
}

/** The port and the tool layer over the session's tools; the mode is the one asked for, else the one the branch recorded. */
export function sessionInstructions(
  opts: InstructionOptions,
  roots: readonly string[],
  tools: ToolHost,
  branch: readonly Entry[],
  budget?: InstructionBudget,
): SessionInstructions {
  const mode = opts.mode !== undefined && isChatMode(opts.mode) ? opts.mode : modeOfStamps(stampsInForce(branch));
  const port = new WorkspaceInstructions({
    roots,
    mode,
    ...(opts.families === undefined ? {} : { families: opts.families }),
    ...(opts.skills === undefined ? {} : { skills: opts.skills }),
    ...(opts.restricted === undefined ? {} : { restricted: opts.restricted }),
    ...(opts.userDir === undefined ? {} : { userDir: opts.userDir }),
    ...(budget === undefined ? {} : { budget: { ...budget, ...(opts.maxWindowShare === undefined ? {} : { share: opts.maxWindowShare }) } }),
  });
  return { port, tools: new InstructionToolHost(tools, port, opts.readOnlyTool === undefined ? {} : { readOnly: opts.readOnlyTool }) };
}
