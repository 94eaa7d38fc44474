// The before and after of one applied write_file / edit_file call, from the session's file snapshots ("Show diff" on its tool row).
import { readFile } from 'node:fs/promises';
import type { AssistantEntry, Entry, ToolResultEntry } from '../../engine/transcript/schema.js';
import { resolveWorkspacePath } from '../tools/paths.js';
import type { FileSnapshots } from './fileSnapshots.js';
import { hashOf } from './objectStore.js';

/** A side of the diff: its text, "no file" (created or deleted), or why it is not known. */
export type Side = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'absent' } | { readonly kind: 'unavailable'; readonly why: string };

export type EditDiff = { readonly ok: true; readonly display: string; readonly before: Side; readonly after: Side } | { readonly ok: false; readonly message: string };

const EDIT_TOOLS = new Set(['write_file', 'edit_file']);

function pathArg(argsJson: string): string | undefined {
  try {
    const p = (JSON.parse(argsJson) as { path?: unknown }).path;
    return typeof p === 'string' ? p : undefined;
  } catch {
    return undefined;
  }
}

async function side(snapshots: FileSnapshots, state: string | null, real: string, missing: string): Promise<Side> {
  if (state === null) return { kind: 'absent' };
  if (state === 'unavailable') return { kind: 'unavailable', why: 'the file was too large to keep (or the snapshot store was full)' };
  const kept = await snapshots.objects.get(state);
  if (kept !== undefined) return { kind: 'text', text: Buffer.from(kept).toString('utf8') };
  // Chats from before results were kept: the file on disk is this edit's result when its content still matches.
  const now = await readFile(real).catch(() => undefined);
  if (now !== undefined && hashOf(now) === state) return { kind: 'text', text: now.toString('utf8') };
  return { kind: 'unavailable', why: missing };
}

/** The diff of the call `callId` asked for by the assistant entry `assistantId` on `branch`. */
export async function editDiffOf(snapshots: FileSnapshots | undefined, roots: readonly string[], branch: readonly Entry[], assistantId: string, callId: string): Promise<EditDiff> {
  const asked = branch.find((e): e is AssistantEntry => e.id === assistantId && e.type === 'assistant');
  const call = asked?.toolCalls.find((c) => c.id === callId);
  if (asked === undefined || call === undefined) return { ok: false, message: 'That edit is no longer on this branch of the chat.' };
  if (!EDIT_TOOLS.has(call.name)) return { ok: false, message: `${call.name} does not edit a file, so it has no diff.` };
  const at = branch.indexOf(asked);
  const result = branch.slice(at + 1).find((e): e is ToolResultEntry => e.type === 'tool_result' && e.toolCallId === callId);
  if (result === undefined) return { ok: false, message: 'That edit has not finished yet.' };
  if (result.isError) return { ok: false, message: 'That edit was not applied, so there is no diff to show.' };
  if (snapshots === undefined) return { ok: false, message: 'The diff is not available: this chat has no file snapshots open (set up a model first).' };
  const path = pathArg(call.arguments);
  const target = path === undefined ? undefined : await resolveWorkspacePath(roots, path).catch(() => undefined);
  if (target === undefined) return { ok: false, message: 'The diff is not available: the edit names no file inside the workspace.' };
  const changes = (await snapshots.log.all()).filter((c) => c.why === 'write' && c.leaf === result.parentId && c.path === target.real);
  const change = changes[changes.length - 1];
  if (change === undefined) return { ok: false, message: `No snapshot of this edit of "${target.display}" was recorded, so its earlier content is not known.` };
  return {
    ok: true,
    display: target.display,
    before: await side(snapshots, change.before, target.real, 'the content before this edit was not kept'),
    after: await side(snapshots, change.after, target.real, 'the file changed since and the result of this edit was not kept'),
  };
}
