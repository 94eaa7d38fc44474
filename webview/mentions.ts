// `@` mentions in the composer, pure (no DOM, tested in plain Node): the query at the caret, the text a pick inserts, the attachments a draft still names.
import type { Attachment } from '../src/protocol/messages.js';
import { mentionText } from '../src/protocol/pathRefs.js';

export { mentionText };

export interface MentionQuery {
  /** Offset of the `@`. */
  readonly start: number;
  /** What follows the `@` up to the caret (quotes dropped). */
  readonly query: string;
}

/** The `@…` being typed at `caret`: an `@` at the start or after whitespace, then no whitespace (or a quoted path). */
export function mentionAt(value: string, caret: number): MentionQuery | undefined {
  const before = value.slice(0, caret);
  const m = /(?:^|\s)@("[^"\n]*|[^\s"@]*)$/.exec(before);
  if (m === null) return undefined;
  const token = m[1] ?? '';
  return { start: caret - token.length - 1, query: token.replace(/^"/, '') };
}

/** The draft with the `@query` at `q` replaced by the picked file's mention and a space; the caret goes after it. */
export function applyPick(value: string, q: MentionQuery, caret: number, a: Attachment): { readonly value: string; readonly caret: number } {
  const text = `${mentionText(a)} `;
  const rest = value.slice(caret).replace(/^"/, '');
  return { value: `${value.slice(0, q.start)}${text}${rest.startsWith(' ') ? rest.slice(1) : rest}`, caret: q.start + text.length };
}

/** True when `mention` is still in `text` as a whole word (an edited or deleted mention no longer attaches). */
function mentions(text: string, mention: string): boolean {
  let at = text.indexOf(mention);
  while (at >= 0) {
    const before = text[at - 1];
    const after = text[at + mention.length];
    if ((before === undefined || /\s/.test(before)) && (after === undefined || /[\s,.;:!?)]/.test(after))) return true;
    at = text.indexOf(mention, at + 1);
  }
  return false;
}

/** The picked attachments whose mention the text still has, in the order they were picked, without repeats. */
export function attachmentsIn(text: string, picked: readonly Attachment[]): Attachment[] {
  const seen = new Set<string>();
  return picked.filter((a) => {
    const m = mentionText(a);
    if (seen.has(m) || !mentions(text, m)) return false;
    seen.add(m);
    return true;
  });
}

/** The folder part of a path, for the popup's detail column ("" at the root). */
export function folderOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at);
}

export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
