// The webview's intake: host messages validated with the host's own schemas, and every error here reported to the host's log.
import { type HostToWebview, parseHostMessage } from '../src/protocol/messages.js';
import type { HostApi } from './vscodeApi.js';

/** Hands each well-formed host message to `onMessage`; malformed ones, uncaught errors and rejections go to the host. */
export function listenToHost(host: HostApi, onMessage: (msg: HostToWebview) => void): void {
  function reportError(message: string, stack?: string): void {
    host.post({ type: 'webviewError', message: message.slice(0, 4000), stack: stack?.slice(0, 16000) });
  }
  window.addEventListener('error', (e) => reportError(e.message, e.error instanceof Error ? e.error.stack : undefined));
  window.addEventListener('unhandledrejection', (e) => reportError(String(e.reason)));
  window.addEventListener('message', (e: MessageEvent<unknown>) => {
    // The host's own schemas (zod/mini): a field added on one side and not the other cannot be dropped silently here.
    const parsed = parseHostMessage(e.data);
    if (!parsed.ok) {
      const type = typeof e.data === 'object' && e.data !== null ? String((e.data as { type?: unknown }).type) : typeof e.data;
      reportError(`Ignored a malformed message from the host (type ${type.slice(0, 60)}): ${parsed.error.slice(0, 300)}`);
      return;
    }
    try {
      onMessage(parsed.message);
    } catch (err) {
      reportError(err instanceof Error ? err.message : String(err), err instanceof Error ? err.stack : undefined);
    }
  });
}
