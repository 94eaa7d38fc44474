// Which capsule an export writes (a checkpoint's, or the latest on the active branch) and the metadata it carries.
import type { SessionTree } from '../transcript/tree.js';
import { latestCapsule } from '../transcript/modelInput.js';
import type { CapsuleEntry, Entry, SessionHeader } from '../transcript/schema.js';
import type { CapsuleMeta } from './capsuleFile.js';
import { MAX_TITLE_CHARS } from './capsuleFile.js';
import { stripImportedPreface } from './imported.js';

export type CapsuleSelection =
  | { readonly ok: true; readonly capsule: CapsuleEntry; readonly path: readonly Entry[] }
  | { readonly ok: false; readonly message: string };

/**
 * The capsule of checkpoint `checkpointId` (the latest such capsule, preferring the active branch),
 * or without one the latest capsule on the active branch. `path` is the branch ending at the capsule.
 */
export function selectCapsule(tree: SessionTree, checkpointId?: string): CapsuleSelection {
  const active = tree.branch();
  if (checkpointId === undefined) {
    const found = latestCapsule(active);
    if (!found) return { ok: false, message: 'the session has no capsule on its active branch; compact it first (/compact)' };
    return { ok: true, capsule: found.capsule, path: active.slice(0, found.index + 1) };
  }
  const matches = tree.entries().filter((e): e is CapsuleEntry => e.type === 'capsule' && e.checkpointId === checkpointId);
  const onBranch = new Set(active.map((e) => e.id));
  const capsule = matches.filter((c) => onBranch.has(c.id)).pop() ?? matches.pop();
  if (capsule) return { ok: true, capsule, path: tree.branch(capsule.id) };
  const isCheckpoint = tree.entries().some((e) => e.type === 'checkpoint' && e.checkpointId === checkpointId);
  return {
    ok: false,
    message: isCheckpoint
      ? `checkpoint ${checkpointId} has no capsule (it marks a point without a compaction)`
      : `no checkpoint ${checkpointId} in this session`,
  };
}

/** The model that was in use when the capsule was made: the last model_change or assistant model before it. */
function modelBefore(path: readonly Entry[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    if (e?.type === 'model_change') return e.model;
    if (e?.type === 'assistant' && e.model) return e.model;
  }
  return undefined;
}

function defaultTitle(capsule: CapsuleEntry, header: SessionHeader): string {
  const session = header.title?.replace(/\s+/g, ' ').trim();
  const title = `Capsule ${capsule.checkpointId} from ${session ? JSON.stringify(session) : `session ${header.id}`}`;
  return title.length <= MAX_TITLE_CHARS ? title : `${title.slice(0, MAX_TITLE_CHARS - 1)}…`;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Entry timestamps are ISO in practice; an older or hand-made file may hold another date form. */
function isoTime(timestamp: string, fallback: string): string {
  if (ISO.test(timestamp)) return timestamp;
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? fallback : new Date(t).toISOString();
}

export interface ExportContent {
  readonly meta: CapsuleMeta;
  /** The file body: the capsule's summary, without the preface an earlier import added. */
  readonly body: string;
}

/** Front matter fields and body for a capsule; `id` is chosen by the caller (a stable hash or a fresh id). */
export function exportContent(args: {
  readonly selection: Extract<CapsuleSelection, { ok: true }>;
  readonly header: SessionHeader;
  readonly id: string;
  readonly title?: string;
  readonly count: (text: string) => number;
  /** ISO time used when the capsule's own timestamp is not an ISO date. */
  readonly now: string;
}): ExportContent {
  const { capsule, path } = args.selection;
  const body = stripImportedPreface(capsule.summary);
  const model = modelBefore(path);
  const meta: CapsuleMeta = {
    id: args.id,
    title: args.title ?? defaultTitle(capsule, args.header),
    created: isoTime(capsule.timestamp, args.now),
    sourceSession: args.header.id,
    sourceCheckpoint: capsule.checkpointId,
    ...(model === undefined ? {} : { model }),
    quality: capsule.quality,
    tokens: args.count(body),
  };
  return { meta, body };
}
