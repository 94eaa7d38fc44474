// The "Capsule" log output channel, created once, and the engine Logger port over it.
import * as vscode from 'vscode';
import type { Logger, LogLevel } from '../../engine/ports.js';

export function createLogChannel(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('Capsule', { log: true });
}

/** Fields are appended as JSON; callers must never put prompt or summary contents in them (docs/behaviour.md#observability). */
export function loggerFor(channel: vscode.LogOutputChannel): Logger {
  return {
    log(level: LogLevel, message: string, fields?: Readonly<Record<string, unknown>>): void {
      // Some warnings are meant for the user, not only the log (a file checkpoints could not keep): shown once as a notification too.
      if (fields?.userNotice === true) void vscode.window.showWarningMessage(message);
      const line = fields && Object.keys(fields).length > 0 ? `${message} ${JSON.stringify(fields)}` : message;
      switch (level) {
        case 'trace':
          channel.trace(line);
          break;
        case 'debug':
          channel.debug(line);
          break;
        case 'info':
          channel.info(line);
          break;
        case 'warn':
          channel.warn(line);
          break;
        case 'error':
          channel.error(line);
          break;
        default: {
          const _exhaustive: never = level;
          return _exhaustive;
        }
      }
    },
  };
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
