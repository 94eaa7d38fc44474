// Actions that change which chat, branch or model is current: new/switch/delete chat, rewind, model and provider choice.
import * as vscode from 'vscode';
import type { ProviderChoice } from '../../protocol/messages.js';
import type { Services } from './services.js';
import { LM_OPTION_PREFIX } from '../services/providers.js';
import { writeSetting } from '../services/settings.js';

/** New chat: whatever runs is stopped and queued input dropped, then a fresh session opens. */
export async function newChat(host: Pick<Services, 'chat' | 'sessions'>): Promise<void> {
  host.chat.preempt();
  await host.chat.task('newChat', async () => {
    await host.chat.detach();
    await host.sessions.newChat();
  });
}

export async function switchChat(host: Pick<Services, 'chat' | 'sessions'>, id: string): Promise<void> {
  if (host.chat.open?.header.id === id) return;
  host.chat.preempt();
  await host.chat.task('switchChat', async () => {
    await host.chat.detach();
    await host.sessions.switchTo(id);
  });
}

/** Deletes a chat and its evidence archive after a modal confirmation. */
export async function deleteChat(host: Pick<Services, 'chat' | 'sessions'>, id: string, title: string): Promise<boolean> {
  const answer = await vscode.window.showWarningMessage(
    `Delete the chat "${title}"?`,
    { modal: true, detail: 'Its transcript, checkpoints, capsules and evidence archive are deleted from this workspace. This cannot be undone.' },
    'Delete',
  );
  if (answer !== 'Delete') return false;
  const current = host.chat.open?.header.id === id;
  if (current) host.chat.preempt();
  await host.chat.task('deleteChat', async () => {
    if (current) await host.chat.detach();
    await host.sessions.delete(id);
  });
  return true;
}

export async function reloadChat(host: Pick<Services, 'chat' | 'sessions'>): Promise<void> {
  host.chat.preempt();
  await host.chat.task('reload', async () => {
    await host.chat.detach();
    await host.sessions.reload();
  });
}

/** The picker's choice: the agent switches first (with the protective handoff), then the settings follow. */
export async function selectModel(host: Pick<Services, 'chat' | 'settings'>, optionId: string): Promise<void> {
  await host.chat.task('selectModel', async (signal) => {
    const s = host.settings.current;
    const lm = optionId.startsWith(LM_OPTION_PREFIX);
    const modelId = lm ? optionId.slice(LM_OPTION_PREFIX.length) : optionId;
    const target = {
      ...s,
      providerKind: lm ? ('vscode-lm' as const) : ('openai' as const),
      modelId,
      provider: lm ? 'vscode-lm' : s.baseUrl === '' ? 'openai' : 'openai-compatible',
    };
    if (!(await host.chat.chooseModel(target, signal))) return;
    // The settings' change event brings the view up to date.
    await writeSetting('provider.kind', target.providerKind);
    await writeSetting('model.id', modelId);
  });
}

export async function setupProvider(host: Pick<Services, 'chat' | 'providers'>, p: ProviderChoice): Promise<void> {
  host.providers.forgetCheck();
  if (p.kind === 'lm') {
    await writeSetting('provider.kind', 'vscode-lm');
    await writeSetting('model.id', p.modelId);
  } else {
    await writeSetting('provider.kind', 'openai');
    await writeSetting('provider.baseUrl', p.baseUrl);
    await writeSetting('model.id', p.model);
  }
  host.providers.invalidateCatalog();
  await host.chat.scheduleReconcile();
}

/**
 * Save in the setup panel, after the provider and its key: the endpoint is checked and the panel says what it found
 * (a wrong URL is reported as such; the settings stay saved either way), then the chat reconnects.
 */
export async function checkProvider(host: Pick<Services, 'chat' | 'settings' | 'providers'>): Promise<void> {
  const s = host.settings.reread();
  await host.providers.check(s, () => host.chat.showSetup());
  host.providers.invalidateCatalog();
  await host.chat.scheduleReconcile();
}

/** The key goes to SecretStorage under the endpoint now configured; it is never written to settings or the log. */
export async function setApiKey(host: Pick<Services, 'chat' | 'settings' | 'keys' | 'providers'>, key: string): Promise<void> {
  await host.keys.set(host.settings.reread().baseUrl, key);
  host.providers.invalidateCatalog();
  await host.chat.scheduleReconcile();
}
