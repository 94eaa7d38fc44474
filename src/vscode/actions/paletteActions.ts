// What each palette command of the catalog (src/protocol/commands.ts) does; the chat view's buttons run the same.
import * as vscode from 'vscode';
import type { CheckpointKind } from '../../engine/transcript/schema.js';
import type { PaletteCommandId } from '../../protocol/commands.js';
import { createPortable, loadCapsule } from './capsuleActions.js';
import { compact, showBudget, showLatestCapsule, toggleAutoCompact } from './chatActions.js';
import { createCheckpoint } from './rewindActions.js';
import type { Services } from './services.js';
import { newChat, reloadChat } from './sessionActions.js';

type PaletteAction = (d: Services) => Promise<void>;

/** The palette asks for the note (empty is fine), then records the checkpoint in the work queue. */
const checkpointFromPalette =
  (kind: CheckpointKind, prompt: string): PaletteAction =>
  async (d) => {
    const note = await vscode.window.showInputBox({ title: prompt, prompt: 'Shown in the Checkpoints tree', ignoreFocusOut: true });
    if (note === undefined) return;
    await createCheckpoint(d, kind, note.trim() === '' ? undefined : note.trim());
  };

/** One action per palette command of the catalog; a catalog entry with a palette id and no action here does not compile. */
export const PALETTE_ACTIONS = {
  compact: async (d) => {
    await d.view.reveal();
    // Through the chat's input queue: it waits for a running turn, shows as queued, and Stop cancels it; nobody
    // typed it, so no "/compact" message appears (the compaction card and its result lines are the same as /compact's).
    d.chat.enqueue('Compact context', (signal) => compact(d, undefined, signal), { untyped: true });
  },
  budget: async (d) => {
    await d.view.reveal();
    showBudget(d);
  },
  toggleAutoCompact: async () => {
    const text = await toggleAutoCompact();
    void vscode.window.showInformationMessage(`Capsule: ${text}`);
  },
  newChat: (d) => newChat(d),
  capsuleShow: async (d) => {
    await d.view.reveal();
    showLatestCapsule(d);
  },
  refresh: (d) => reloadChat(d),
  checkpoint: checkpointFromPalette('user', 'A note for this checkpoint (optional)'),
  milestone: checkpointFromPalette('milestone', 'What was reached (optional)'),
  pivot: checkpointFromPalette('plan_pivot', 'What changes in the plan (optional)'),
  capsuleLoad: async (d) => {
    await d.view.reveal();
    await loadCapsule(d, undefined, false);
  },
  capsuleCreate: async (d) => {
    const title = await vscode.window.showInputBox({
      title: 'Create Portable Capsule',
      prompt: 'A title for the capsule (it is saved as a .capsule.md file you choose next)',
      ignoreFocusOut: true,
    });
    if (title === undefined || title.trim() === '') return;
    await d.view.reveal();
    // The same command as /capsule create, through the chat's queue; nobody typed it, so no message is echoed.
    const t = title.trim();
    d.chat.enqueue(`Create portable capsule "${t}"`, (signal) => createPortable(d, t, signal), { untyped: true });
  },
} satisfies Record<PaletteCommandId, PaletteAction>;
