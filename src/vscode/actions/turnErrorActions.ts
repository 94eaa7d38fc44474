// An error card's buttons (docs/behaviour.md#errors): Retry the failed turn, or open the setting that is the likely cause.
import * as vscode from 'vscode';
import type { SettingsTarget } from '../../protocol/messages.js';
import type { Services } from './services.js';

/** The settings editor filtered to the one setting; the API key lives in SecretStorage, so its command asks for it. */
const SETTING_IDS: Readonly<Record<Exclude<SettingsTarget, 'apiKey'> | 'window', string>> = {
  model: 'capsule.model.id',
  baseUrl: 'capsule.provider.baseUrl',
  window: 'capsule.model.contextWindow',
};

export function retryTurn(host: Pick<Services, 'chat'>, turnId: string): void {
  host.chat.retry(turnId);
}

export async function openSettings(target: SettingsTarget | 'window'): Promise<void> {
  if (target === 'apiKey') {
    await vscode.commands.executeCommand('capsule.setApiKey');
    return;
  }
  await vscode.commands.executeCommand('workbench.action.openSettings', SETTING_IDS[target]);
}
