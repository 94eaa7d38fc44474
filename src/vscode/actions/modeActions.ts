// `/mode` and `/skills`: the chat mode (Agent or Ask, enforced by the tool layer) and the skills of the workspace with their tokens.
import { modeLabel, type ChatMode } from '../../engine/instructions/mode.js';
import { loadedSkills } from '../../engine/instructions/skills.js';
import { skillReport } from '../../node/instructions/instructionReport.js';
import type { Services } from './services.js';

/** `/mode [agent|ask]`: without an argument says the mode; a switch reaches the model as one system update. */
export async function switchMode(host: Pick<Services, 'chat' | 'out'>, mode: ChatMode | undefined): Promise<void> {
  const a = host.chat.open;
  const instr = a?.online === true ? a.instructions : undefined;
  if (a?.online !== true || instr === undefined) {
    host.out.fail(host.chat.problem ?? 'Set up a model first.');
    return;
  }
  if (mode === undefined || mode === instr.mode) {
    host.out.info(
      `The chat is in ${modeLabel(instr.mode)} mode.${instr.mode === 'ask' ? ' Files are not changed and commands do not run; /mode agent switches back.' : ' /mode ask makes it read-only.'}`,
    );
    return;
  }
  instr.setMode(mode);
  await a.syncInstructions();
  host.out.info(
    mode === 'ask'
      ? 'Ask mode: the agent reads and answers; writes and commands are refused.'
      : 'Agent mode: the agent may edit files and run commands again, with your approval.',
  );
}

/** `/skills`: each skill with its index and body tokens; ● marks the ones this chat loaded. */
export function showSkills(host: Pick<Services, 'chat' | 'out'>): void {
  const a = host.chat.open;
  const instr = a?.online === true ? a.instructions : undefined;
  if (a?.online !== true || instr === undefined) {
    host.out.fail(host.chat.problem ?? 'Set up a model first.');
    return;
  }
  const cache = a.basis().cache;
  const active = loadedSkills(a.branch()).map((s) => s.name);
  host.out.info(['Skills:', ...skillReport(instr.skills, (t) => cache.exactTokensOfText(t), active)].join('\n'));
}
