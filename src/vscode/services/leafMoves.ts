// Moves of the open chat's leaf the user asks for — rewind, the ‹ › branch switcher, undo/redo of a compaction — always through the open chat's facade: the agent's when a model is set up, an offline one over the session file otherwise (docs/rewind.md).
import type { UndoAction } from '../../engine/compaction/undo.js';
import type { RewindOptions } from '../../node/agentSession.js';
import type { ChatReads } from '../../node/chatReads.js';
import type { RewindDone, RewindFailure, RewindPreview, SwitchDone } from '../../node/sessionRewind.js';
import type { ChatEvents } from './chatEvents.js';
import type { ChatFigures } from './chatFigures.js';
import type { OpenChatFacade } from './chatPorts.js';

/** The same chat file: the chat did not change while a dialog was open (the facade may have, when a model came up). */
function sameChat(open: OpenChatFacade | undefined, chat: ChatReads): open is OpenChatFacade {
  return open !== undefined && open.path === chat.path && open.header.id === chat.header.id;
}

/** The moves, each refused with a notice saying why, or done; a facade may change more than the appended leaf shows, so the meter measures again. */
export class ChatLeafMoves {
  constructor(
    private readonly events: ChatEvents,
    private readonly figures: ChatFigures,
  ) {}

  moved<T extends RewindDone>(open: OpenChatFacade, r: T | RewindFailure): T | undefined {
    if (!r.ok) {
      this.events.notify('error', r.error);
      return undefined;
    }
    this.figures.remeasure(open);
    return r;
  }

  /** What a rewind to `ref` would do (files that differ, the message that comes back). */
  preview(open: OpenChatFacade | undefined, ref: string): Promise<RewindPreview | RewindFailure> {
    if (!open) return Promise.resolve({ ok: false, error: 'No chat is open.' });
    return open.previewRewind(ref);
  }

  /** Rewind `chat` after the user confirmed; undefined (and a notice) when it could not be done. */
  async rewind(open: OpenChatFacade | undefined, chat: ChatReads, ref: string, opts: RewindOptions = {}): Promise<RewindDone | undefined> {
    if (!sameChat(open, chat)) return undefined; // the chat changed while the dialog was open
    return this.moved(open, await open.rewind(ref, opts));
  }

  /** The ‹ › switcher (docs/rewind.md#branches); undefined (and a notice) when refused. */
  async switchBranch(open: OpenChatFacade | undefined, chat: ChatReads, entryId: string): Promise<SwitchDone | undefined> {
    if (!sameChat(open, chat)) return undefined;
    return this.moved(open, await open.switchBranch(entryId));
  }

  /** Undo or redo one compaction; false (and a notice saying why) when refused. */
  async undoCompaction(open: OpenChatFacade | undefined, ref: string, action: UndoAction): Promise<boolean> {
    if (open?.online !== true) {
      this.events.notify('error', 'Set up a model first: undoing a compaction measures the result against its context window.');
      return false;
    }
    const r = await open.undoCompaction(ref, action);
    if (!r.ok) {
      this.events.notify('error', r.error);
      return false;
    }
    this.figures.remeasure(open);
    return true;
  }
}
