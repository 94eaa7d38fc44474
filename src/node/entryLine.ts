// What the session store checks before an entry reaches the file: the schema, the links into the tree, the line limit.
import { EntrySchema, type Entry } from '../engine/transcript/schema.js';
import { isSubagentEntry } from '../engine/transcript/subagentRef.js';
import type { SessionTree } from '../engine/transcript/tree.js';

/** The entry as the schema reads it, or one line naming up to three of its problems. */
export function checkedEntry(entry: Entry): { readonly ok: true; readonly entry: Entry } | { readonly ok: false; readonly error: string } {
  const parsed = EntrySchema.safeParse(entry);
  if (parsed.success) return { ok: true, entry: parsed.data };
  const what = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join('.')}: ${i.message}`)
    .join('; ');
  return {
    ok: false,
    error: `Refusing to write an invalid entry (${String((entry as { type?: unknown }).type)} ${String((entry as { id?: unknown }).id)}): ${what}`,
  };
}

/** The entry as validated and its complete line (serialized fully first, so the file only ever sees whole lines); throws one line saying why not. */
export function entryLine(entry: Entry, tree: SessionTree, maxLineBytes: number): { readonly entry: Entry; readonly line: Buffer } {
  const checked = checkedEntry(entry);
  if (!checked.ok) throw new Error(checked.error);
  const e = checked.entry;
  checkLinks(tree, e);
  const line = Buffer.from(`${JSON.stringify(e)}\n`, 'utf8');
  if (line.length - 1 > maxLineBytes) {
    throw new Error(`Cannot append ${e.type} entry ${e.id}: ${line.length} bytes exceeds the ${maxLineBytes}-byte line limit`);
  }
  return { entry: e, line };
}

/** An entry continues the leaf, branches from an existing entry, or starts a subagent's own root; a leaf move names known entries. */
function checkLinks(tree: SessionTree, e: Entry): void {
  if (tree.has(e.id)) throw new Error(`Cannot append ${e.type} entry: id ${e.id} already exists`);
  if (e.type === 'leaf') {
    if (e.parentId !== null && !tree.has(e.parentId)) throw new Error(`Cannot append leaf move ${e.id}: unknown parent ${e.parentId}`);
    if (e.targetId !== null && !tree.has(e.targetId)) throw new Error(`Cannot append leaf move ${e.id}: unknown target ${e.targetId}`);
    return;
  }
  if (e.parentId === tree.leafId) return;
  if (e.parentId === null && isSubagentEntry(e)) return; // a subagent's branch starts at its own root
  if (e.parentId !== null && tree.has(e.parentId)) return; // a branch from an earlier entry
  throw new Error(
    `Cannot append ${e.type} entry ${e.id}: parent ${String(e.parentId)} is neither the current leaf (${String(tree.leafId)}) nor an existing entry`,
  );
}
