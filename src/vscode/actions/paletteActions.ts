// The actions behind the palette commands that the chat's toolbar offers too: one function each, whoever asks.
import * as vscode from 'vscode';
import { showBudget, showLatestCapsule, toggleAutoCompact } from './chatActions.js';
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
      // Through the chat's input queue: it waits for a running turn, shows as queued, and Stop cancels it; nobody
      // typed it, so no "/compact" message appears (the compaction card and its result lines are the same as /compact's).
      d.chat.enqueue('Compact context', { kind: 'compact' }, undefined, true);
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
      await d.view.reveal();
      showLatestCapsule(d);
    },
    refresh: () => reloadChat(d),
  };
}
