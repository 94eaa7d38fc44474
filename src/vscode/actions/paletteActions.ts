// The actions behind the palette commands that the chat's toolbar offers too: one function each, whoever asks.
import * as vscode from 'vscode';
import { latestCapsule } from '../../engine/transcript/modelInput.js';
import { showBudget, toggleAutoCompact } from './chatActions.js';
import type { Services } from './services.js';
import { newChat, reloadChat } from './sessionActions.js';

export interface PaletteActions {
  compactContext(): Promise<void>;
  showBudget(): Promise<void>;
  toggleAutoCompact(): Promise<void>;
  newChat(): Promise<void>;
  showLatestCapsule(): Promise<void>;
  refresh(): Promise<void>;
}

export function paletteActions(d: Services): PaletteActions {
  return {
    compactContext: async () => {
      await d.view.reveal();
      // Through the chat's input queue: it waits for a running turn, shows as queued, and Stop cancels it.
      d.chat.enqueue('/compact', { kind: 'compact' });
    },
    showBudget: async () => {
      await d.view.reveal();
      showBudget(d);
    },
    toggleAutoCompact: async () => {
      const text = await toggleAutoCompact();
      void vscode.window.showInformationMessage(`Capsule: ${text}`);
    },
    newChat: () => newChat(d),
    showLatestCapsule: async () => {
      const store = d.chat.store;
      const found = store ? latestCapsule(store.tree.branch()) : undefined;
      if (!found) {
        void vscode.window.showInformationMessage('Capsule: this chat has no capsule yet.');
        return;
      }
      await d.view.reveal();
      d.out.showCapsule(found.capsule.checkpointId);
    },
    refresh: () => reloadChat(d),
  };
}
