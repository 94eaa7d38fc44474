// Makes untrusted text (provider answers and errors, tool names, file names) safe to print on a terminal: control characters are shown, never interpreted.

/**
 * C0 controls except tab and newline, DEL, the C1 controls (0x9B is a one-byte CSI on some terminals), and the
 * invisible format characters that reorder or hide text (bidi overrides and isolates, zero-width marks, line and
 * paragraph separators).
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** Caret notation as `cat -v` writes it (ESC → ^[, BEL → ^G, CR → ^M, DEL → ^?); anything else as <U+XXXX>. */
function shown(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** `text` with every control character made visible; newlines and tabs stay (a multi-line block stays one). */
export function visible(text: string): string {
  return text.replace(UNSAFE, shown);
}

/** One line: visible, with line breaks shown as ⏎ so untrusted text can never start a line of its own. */
export function inline(text: string): string {
  return visible(text.replace(/\r?\n/g, ' ⏎ '));
}

/**
 * A line of the model's answer. Capsule's own status lines start with `[` at the first column (`[turn completed]`,
 * `[session] …`); an answer line that starts with `[` gets a `\` in front so it can never pass for one — and one that
 * starts with `\` gets another, so the marking stays unambiguous. A CR before the line break (CRLF text) is dropped.
 */
export function answerLine(line: string): string {
  const text = visible(line.endsWith('\r') ? line.slice(0, -1) : line);
  return text.startsWith('[') || text.startsWith('\\') ? `\\${text}` : text;
}
