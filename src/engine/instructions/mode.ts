// Chat modes: Agent (the default: edits and commands with approval) and Ask (read-only), the instruction a mode adds, and which tools each mode allows.
import { makeSource, type InstructionSource } from './sources.js';

const MODES = ['agent', 'ask'] as const;
export type ChatMode = (typeof MODES)[number];
export const DEFAULT_MODE: ChatMode = 'agent';

export function isChatMode(v: unknown): v is ChatMode {
  return typeof v === 'string' && (MODES as readonly string[]).includes(v);
}

export function modeLabel(mode: ChatMode): string {
  return mode === 'ask' ? 'Ask' : 'Agent';
}

/** The key of the mode's source; the ledger reads the mode in force from it. */
const ASK_MODE_KEY = 'mode:ask';

/**
 * Agent mode adds nothing to the prompt (so chats that never switch send what they always sent); Ask mode adds
 * one section. Leaving Ask removes it, and the update says the chat is back in Agent mode.
 */
export function modeSource(mode: ChatMode): InstructionSource | undefined {
  if (mode === 'agent') return undefined;
  return makeSource(
    ASK_MODE_KEY,
    'mode',
    'Mode: Ask',
    'The chat is in Ask mode: answer questions and explain, reading the workspace as needed. Do not edit, create or delete files and do not run commands; those tools are refused in this mode. If a change is needed, describe it and tell the user to switch to Agent mode.',
  );
}

/** The mode in force as the transcript recorded it (the latest instruction stamps): Ask when its source is there. */
export function modeOfStamps(stamps: readonly { readonly key: string }[] | undefined): ChatMode {
  return stamps?.some((s) => s.key === ASK_MODE_KEY) === true ? 'ask' : 'agent';
}
