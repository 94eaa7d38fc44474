// Typed wrapper over acquireVsCodeApi: outgoing messages use the protocol types, UI state survives hide/show.
import type { WebviewToHost } from '../src/protocol/messages.js';

/** Webview-local UI state kept by VS Code across reloads of the view (never host data). */
export interface UiState {
  readonly detailsOpen: boolean;
}

const DEFAULT_STATE: UiState = { detailsOpen: true };

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export interface HostApi {
  post(message: WebviewToHost): void;
  state(): UiState;
  updateState(patch: Partial<UiState>): void;
}

function isUiState(v: unknown): v is UiState {
  return typeof v === 'object' && v !== null && typeof (v as { detailsOpen?: unknown }).detailsOpen === 'boolean';
}

/** acquireVsCodeApi may be called only once per page, so this is too. */
export function connectHost(): HostApi {
  const api = acquireVsCodeApi();
  let state: UiState = isUiState(api.getState()) ? (api.getState() as UiState) : DEFAULT_STATE;
  return {
    post: (message) => api.postMessage(message),
    state: () => state,
    updateState: (patch) => {
      state = { ...state, ...patch };
      api.setState(state);
    },
  };
}
