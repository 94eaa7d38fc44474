// A turn that starts with the user's message (docs/behaviour.md#agent): its checkpoint, the message, the attached files, then the steps.
import type { CheckpointEntry, UserEntry } from '../transcript/schema.js';
import type { TurnInput, TurnResult } from './agentEvents.js';
import type { TurnState } from './turnRequest.js';
import { attachFiles, guarded, runSteps, type StepHost } from './turnSteps.js';

/** The steps' host plus the agent's opening work (interrupted calls closed, epoch, model, instruction updates). */
export interface UserTurnHost extends StepHost {
  prepare(): Promise<void>;
}

export function runUserTurn(h: UserTurnHost, input: TurnInput, st: TurnState): Promise<TurnResult> {
  const store = h.deps.store;
  if (store.readOnly) {
    h.emit({ type: 'turn_start', turnId: st.turnId, userEntryId: '' });
    return h.finish(st, 'failed', `This session is read-only${store.readOnlyReason ? ` (${store.readOnlyReason})` : ''}; nothing was sent.`);
  }
  return guarded(h, st, async () => {
    await h.prepare();
    // docs/behaviour.md#rewind: every message gets its checkpoint first, so "rewind to this message" restores the input before it.
    const userId = h.deps.ids.next('e_');
    const ck: CheckpointEntry = { ...h.entryBase(), type: 'checkpoint', checkpointId: h.deps.ids.next('ck_'), kind: 'auto', forEntryId: userId };
    await store.append(ck);
    const user: UserEntry = {
      ...h.entryBase(),
      id: userId,
      type: 'user',
      content: input.userText,
      ...(input.images && input.images.length > 0 ? { images: [...input.images] } : {}),
      turnId: st.turnId,
    };
    await store.append(user);
    h.emit({ type: 'turn_start', turnId: st.turnId, userEntryId: user.id });
    if (input.attachments !== undefined && input.attachments.length > 0 && (await attachFiles(h, input.attachments, st.turnId, st.signal))) {
      return h.finish(st, 'cancelled', 'The turn was cancelled while the attached files were read.');
    }
    return runSteps(h, st);
  });
}
