// Typed wrapper over acquireVsCodeApi: outgoing messages use the protocol types, UI state survives hide/show and reloads.
import type { WebviewToHost } from '../src/protocol/messages.js';

export type ViewerTab = 'sections' | 'ledger' | 'diff';

/** Where the list was scrolled to: an item near the top of the viewport and its offset, or null for "at the newest". */
export interface ScrollAnchor {
  readonly itemId: string;
  readonly offset: number;
}

/** Webview-local UI state kept by VS Code across reloads of the view (never host data, never the API key). */
interface UiState {
  readonly detailsOpen: boolean;
  readonly draft: string;
  readonly scroll: ScrollAnchor | null;
  readonly viewer: { readonly checkpointId: string; readonly tab: ViewerTab } | null;
  readonly setupOpen: boolean;
  /** The plan checklist above the composer is expanded. */
  readonly planOpen: boolean;
}

const DEFAULT_STATE: UiState = { detailsOpen: false, draft: '', scroll: null, viewer: null, setupOpen: false, planOpen: true };

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

function rec(v: unknown): Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null ? (v as Readonly<Record<string, unknown>>) : {};
}

/** Reads saved state field by field, so state saved by an older version keeps whatever still makes sense. */
function restoreState(saved: unknown): UiState {
  const s = rec(saved);
  const scroll = rec(s.scroll);
  const viewer = rec(s.viewer);
  const tab = viewer.tab === 'ledger' || viewer.tab === 'diff' ? viewer.tab : 'sections';
  return {
    detailsOpen: typeof s.detailsOpen === 'boolean' ? s.detailsOpen : DEFAULT_STATE.detailsOpen,
    draft: typeof s.draft === 'string' ? s.draft.slice(0, 1_000_000) : '',
    scroll:
      typeof scroll.itemId === 'string' && typeof scroll.offset === 'number' && Number.isFinite(scroll.offset)
        ? { itemId: scroll.itemId, offset: scroll.offset }
        : null,
    viewer: typeof viewer.checkpointId === 'string' ? { checkpointId: viewer.checkpointId, tab } : null,
    setupOpen: s.setupOpen === true,
    planOpen: s.planOpen !== false,
  };
}

/** acquireVsCodeApi may be called only once per page, so this is too. */
export function connectHost(): HostApi {
  const api = acquireVsCodeApi();
  let state = restoreState(api.getState());
  return {
    post: (message) => api.postMessage(message),
    state: () => state,
    updateState: (patch) => {
      state = { ...state, ...patch };
      api.setState(state);
    },
  };
}
