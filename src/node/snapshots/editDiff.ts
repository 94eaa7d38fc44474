// The before and after of one applied write_file / edit_file call, from the session's file snapshots ("Show diff" on its tool row).
import { readFile } from 'node:fs/promises';
import type { AssistantEntry, Entry, ToolResultEntry } from '../../engine/transcript/schema.js';
import { resolveWorkspacePath } from '../tools/paths.js';
import type { FileSnapshots } from './fileSnapshots.js';
import { sameContent } from './objectStore.js';

/** A side of the diff: its text, "no file" (created or deleted), or why it is not known. */
export type Side = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'absent' } | { readonly kind: 'unavailable'; readonly why: string };

export type EditDiff =
  | { readonly ok: true; readonly display: string; readonly before: Side; readonly after: Side }
  | { readonly ok: false; readonly message: string };

const EDIT_TOOLS = new Set(['write_file', 'edit_file']);

interface EditArgs {
  readonly path?: unknown;
  readonly content?: unknown;
  readonly oldText?: unknown;
  readonly newText?: unknown;
}

function argsOf(argsJson: string): EditArgs {
  try {
    const a: unknown = JSON.parse(argsJson);
    return typeof a === 'object' && a !== null ? (a as EditArgs) : {};
  } catch {
    return {};
  }
}

/**
 * The text the call wrote, worked out from its arguments the way the tool applied them (write_file's content;
 * edit_file's one replacement, with the tool's CRLF fallback). Only a result whose hash is the recorded one is used,
 * so the snapshot store spends no room on results.
 */
function replayed(name: string, args: EditArgs, before: Side): string | undefined {
  if (name === 'write_file') return typeof args.content === 'string' ? args.content : undefined;
  if (before.kind !== 'text' || typeof args.oldText !== 'string' || typeof args.newText !== 'string') return undefined;
  const text = before.text;
  let oldText = args.oldText;
  let newText = args.newText;
  if (!text.includes(oldText) && text.includes('\r\n') && !oldText.includes('\r')) {
    oldText = oldText.replace(/\n/g, '\r\n');
    newText = newText.replace(/\r?\n/g, '\r\n');
  }
  const at = text.indexOf(oldText);
  return at < 0 ? undefined : text.slice(0, at) + newText + text.slice(at + oldText.length);
}

async function side(snapshots: FileSnapshots, state: string | null, real: string, missing: string, replay?: string): Promise<Side> {
  if (state === null) return { kind: 'absent' };
  if (state === 'unavailable') return { kind: 'unavailable', why: 'the file was too large to keep (or the snapshot store was full)' };
  const kept = await snapshots.objects.get(state);
  if (kept !== undefined) return { kind: 'text', text: Buffer.from(kept).toString('utf8') };
  if (replay !== undefined && sameContent(Buffer.from(replay, 'utf8'), state)) return { kind: 'text', text: replay };
  // Chats from before results were kept: the file on disk is this edit's result when its content still matches.
  const now = await readFile(real).catch(() => undefined);
  if (now !== undefined && sameContent(now, state)) return { kind: 'text', text: now.toString('utf8') };
  return { kind: 'unavailable', why: missing };
}

/** The diff of the call `callId` asked for by the assistant entry `assistantId` on `branch`. */
export async function editDiffOf(
  snapshots: FileSnapshots | undefined,
  roots: readonly string[],
  branch: readonly Entry[],
  assistantId: string,
  callId: string,
): Promise<EditDiff> {
  const asked = branch.find((e): e is AssistantEntry => e.id === assistantId && e.type === 'assistant');
  const call = asked?.toolCalls.find((c) => c.id === callId);
  if (asked === undefined || call === undefined) return { ok: false, message: 'That edit is no longer on this branch of the chat.' };
  if (!EDIT_TOOLS.has(call.name)) return { ok: false, message: `${call.name} does not edit a file, so it has no diff.` };
  const at = branch.indexOf(asked);
  const result = branch.slice(at + 1).find((e): e is ToolResultEntry => e.type === 'tool_result' && e.toolCallId === callId);
  if (result === undefined) return { ok: false, message: 'That edit has not finished yet.' };
  if (result.isError) return { ok: false, message: 'That edit was not applied, so there is no diff to show.' };
  if (snapshots === undefined) return { ok: false, message: 'The diff is not available: this chat has no file snapshots open (set up a model first).' };
  const args = argsOf(call.arguments);
  const path = typeof args.path === 'string' ? args.path : undefined;
  const target = path === undefined ? undefined : await resolveWorkspacePath(roots, path).catch(() => undefined);
  if (target === undefined) return { ok: false, message: 'The diff is not available: the edit names no file inside the workspace.' };
  const changes = (await snapshots.log.all()).filter((c) => c.why === 'write' && c.leaf === result.parentId && c.path === target.real);
  const change = changes[changes.length - 1];
  if (change === undefined) return { ok: false, message: `No snapshot of this edit of "${target.display}" was recorded, so its earlier content is not known.` };
  const before = await side(snapshots, change.before, target.real, 'the content before this edit was not kept');
  const after = await side(
    snapshots,
    change.after,
    target.real,
    'the file changed since and this edit’s result could not be worked out',
    replayed(call.name, args, before),
  );
  return { ok: true, display: target.display, before, after };
}
