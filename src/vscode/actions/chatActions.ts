// The chat's slash commands (one handler per catalog entry of src/protocol/commands.ts) and the actions behind them.
import type { CheckpointKind } from '../../engine/transcript/schema.js';
import type { CompletedOutcome } from '../../engine/compaction/outcome.js';
import { formatBudget } from '../../engine/tokens/budgetFormat.js';
import { subagentLines } from '../../engine/agent/subagentResult.js';
import { latestCapsule } from '../../engine/transcript/modelInput.js';
import { errorMessage } from '../base/log.js';
import { helpLines, parseSlash, runsImmediately, type ChatCommand, type InvalidCommand, type SlashCommandId } from '../../protocol/commands.js';
import type { Attachment } from '../../engine/agent/attachments.js';
import type { ImagePart } from '../../engine/transcript/schema.js';
import { readSetting, writeSetting } from '../services/settings.js';
import { createPortable, exportTo, loadCapsule } from './capsuleActions.js';
import { noteMemoryNotWritten } from './memoryActions.js';
import type { Services } from './services.js';
import { showSkills, switchMode } from './modeActions.js';

export { workspaceRoot } from './chatPaths.js';

type Handler<K extends SlashCommandId> = (host: Services, c: Extract<ChatCommand, { readonly kind: K }>, signal: AbortSignal) => Promise<void> | void;

/** What each slash command does; a command of the catalog without its handler here does not compile. */
const SLASH_HANDLERS = {
  compact: (host, c, signal) => compact(host, c.focus, signal),
  budget: (host) => showBudget(host),
  autoCompact: async (host, c) => host.out.info(await setAutoCompact(c.state === 'on')),
  checkpoint: (host, c) => recordCheckpoint(host, 'user', c.note),
  milestone: (host, c) => recordCheckpoint(host, 'milestone', c.note),
  pivot: (host, c) => recordCheckpoint(host, 'plan_pivot', c.note),
  capsuleShow: (host) => showLatestCapsule(host),
  capsuleCreate: (host, c, signal) => createPortable(host, c.title, signal),
  capsuleExport: (host, c) => exportTo(host, c.checkpointId, c.path),
  capsuleLoad: (host, c) => loadCapsule(host, c.path, true),
  mode: (host, c) => switchMode(host, c.mode),
  skills: (host) => showSkills(host),
  help: (host) => host.out.info(helpLines().join('\n')),
} satisfies { readonly [K in SlashCommandId]: Handler<K> };

/**
 * What the user typed: a slash command becomes a job whose closure runs its handler (quick ones at once, the rest in
 * their turn, Stop aborting them); anything else is a message for the agent.
 */
export function sendText(host: Services, text: string, clientId?: string, attachments: readonly Attachment[] = [], images: readonly ImagePart[] = []): void {
  const c = parseSlash(text);
  if (c === undefined) {
    host.chat.send(text, clientId, attachments, images);
    return;
  }
  host.chat.enqueue(text, (signal) => runSlash(host, c, signal), { ...(clientId === undefined ? {} : { clientId }), immediate: runsImmediately(c) });
}

/** Runs one parsed slash command; the palette and the toolbar call the same functions. */
async function runSlash(host: Services, c: ChatCommand | InvalidCommand, signal: AbortSignal): Promise<void> {
  if (c.kind === 'invalid') {
    host.out.fail(c.message);
    return;
  }
  // The table is keyed by the command's own id, so the handler gets the arguments of that command.
  await (SLASH_HANDLERS[c.kind] as Handler<typeof c.kind>)(host, c, signal);
}

/** `/checkpoint`, `/milestone`, `/pivot` (inside the work queue): milestone and pivot record their compaction intents. */
export async function recordCheckpoint(host: Pick<Services, 'chat' | 'out'>, kind: CheckpointKind, note?: string): Promise<void> {
  const a = host.chat.open;
  if (a?.online !== true) {
    host.out.fail(host.chat.problem ?? 'Set up a model first.');
    return;
  }
  const id = await a.checkpoint(kind, note);
  const what = kind === 'milestone' ? 'Milestone' : kind === 'plan_pivot' ? 'Plan pivot' : 'Checkpoint';
  const soon = kind === 'user' ? '' : ' The next request compacts first when auto-compact allows it.';
  host.out.info(`${what} ${id} recorded${note ? `: ${note}` : ''}. Rewind to it from the Checkpoints tree.${soon}`);
}

function completedOf(outcomes: readonly { readonly outcome: string }[]): CompletedOutcome | undefined {
  return [...outcomes].reverse().find((o): o is CompletedOutcome => o.outcome === 'completed');
}

/** Why a completed /compact wrote no Project Memory, in words: only a full-quality summary is kept for new chats. */
function memoryNotWrittenReason(capsule: { readonly quality: string; readonly details: Readonly<Record<string, unknown>> }): string {
  if (capsule.quality !== 'degraded') return 'this compaction is not one that writes it.';
  const reason = capsule.details['fallbackReason'];
  const because = typeof reason === 'string' && reason.trim() !== '' ? ` (${reason.trim().slice(0, 200)})` : '';
  return `the model's summary could not be used${because}, so Capsule kept a simpler summary of its own. That is enough for this chat, but only a full-quality summary becomes Project Memory. Run /compact again when the model answers normally.`;
}

/** `/compact [focus]`, the toolbar and the palette's Compact Context: no ROI gate; a validated full capsule becomes Project Memory. */
export async function compact(host: Pick<Services, 'chat' | 'out' | 'memory' | 'logger'>, focus: string | undefined, signal: AbortSignal): Promise<void> {
  const a = host.chat.open;
  if (a?.online !== true) {
    host.out.fail(`Nothing was compacted: ${host.chat.problem ?? 'no model is set up yet'}`);
    return;
  }
  const r = await a.compact({ ...(focus === undefined ? {} : { focus }), signal });
  const done = completedOf(r.outcomes);
  if (done) {
    try {
      // The fallback capsule is the degraded one; a full capsule passed the compaction's validation.
      const mirrored = await host.memory.mirror(done.capsule, { validated: done.quality !== 'degraded', sessionId: a.header.id, model: a.model.model });
      if (mirrored) {
        noteMemoryNotWritten(undefined);
        host.out.info('Project Memory was updated from this compaction (Capsule: Show Project Memory opens it).');
      } else {
        // Say it where the user looks: a /compact that quietly left Project Memory as it was read as a bug later.
        const why = memoryNotWrittenReason(done.capsule);
        noteMemoryNotWritten(why);
        host.out.info(`Project Memory was not written: ${why}`);
      }
    } catch (err) {
      host.logger.log('warn', `Project Memory was not updated: ${errorMessage(err)}`);
    }
  } else if (r.outcomes.length === 0) host.out.info('Nothing to compact.');
  // The figures follow the compaction's own events (the projection measures at its end); nothing to post here.
}

/** `/budget`: the figures the meter shows (the chat service keeps them current as entries are appended). */
export function showBudget(host: Pick<Services, 'chat' | 'out' | 'logger'>): void {
  const b = host.chat.budget;
  if (!b) {
    host.out.fail(host.chat.problem ?? 'No chat is open yet.');
    return;
  }
  // Subagent runs are listed with their own cost, never added to the chat's figures (docs/subagents.md#cost).
  const chat = host.chat.open;
  const runs = chat?.subagentRuns() ?? [];
  const mcp = chat?.online === true ? chat.mcpBudget() : undefined;
  const text = [formatBudget(b), ...(mcp === undefined ? [] : [mcp]), ...subagentLines(runs)].join('\n');
  host.out.info(text);
  host.logger.log('info', `Context budget\n${text}`);
}

/** `/capsule`, the palette's Show Latest Capsule and the toolbar: the capsule in force, in the viewer. */
export function showLatestCapsule(host: Pick<Services, 'chat' | 'out'>): void {
  const chat = host.chat.open;
  const latest = chat ? latestCapsule(chat.branch()) : undefined;
  if (latest) host.out.showCapsule(latest.capsule.checkpointId);
  else host.out.info('This chat has no capsule yet; /compact makes one.');
}

/** `/auto-compact on|off`, the toolbar toggle and the palette: one setting, written by the one scope rule; returns what to tell the user. */
async function setAutoCompact(on: boolean): Promise<string> {
  await writeSetting('compaction.auto', on);
  const envOff = (process.env.CAPSULE_AUTO_COMPACT ?? '').trim().toLowerCase() === 'false';
  return on
    ? `Auto-compact on${envOff ? ' (CAPSULE_AUTO_COMPACT=false still keeps it off)' : ''}.`
    : 'Auto-compact off; hard-limit protection and overflow recovery stay on.';
}

/** The toolbar's and the palette's toggle: flips what the settings say now. */
export function toggleAutoCompact(): Promise<string> {
  return setAutoCompact(!(readSetting<boolean>('compaction.auto') ?? true));
}
