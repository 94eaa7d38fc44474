// Lines of a tool result read from either end without splitting the whole text: a result can be megabytes, and the status readers need only its first or last few lines.

/**
 * The trimmed lines of `text` from the first on, blank ones skipped; stops when `visit` returns true. Lines end at
 * \n, \r or \r\n: the text is cut at \n, and only a piece that holds a \r (short, as a rule) is cut again.
 */
export function scanLines(text: string, visit: (line: string) => boolean): void {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const piece = text.slice(start, end);
    if (piece.includes('\r')) {
      for (const part of piece.split('\r')) if (visitLine(part, visit)) return;
    } else if (visitLine(piece, visit)) return;
    start = end + 1;
  }
}

/** The same lines from the last one back. */
export function scanLinesFromEnd(text: string, visit: (line: string) => boolean): void {
  let end = text.length;
  while (end >= 0) {
    const from = end === 0 ? -1 : text.lastIndexOf('\n', end - 1);
    const piece = text.slice(from + 1, end);
    if (piece.includes('\r')) {
      const parts = piece.split('\r');
      for (let i = parts.length - 1; i >= 0; i--) if (visitLine(parts[i] ?? '', visit)) return;
    } else if (visitLine(piece, visit)) return;
    end = from;
  }
}

function visitLine(raw: string, visit: (line: string) => boolean): boolean {
  const line = raw.trim();
  return line !== '' && visit(line);
}

/** The first line that is not blank, trimmed; '' when there is none. */
export function firstNonBlankLine(text: string): string {
  let out = '';
  scanLines(text, (l) => {
    out = l;
    return true;
  });
  return out;
}

/** The last line that is not blank, trimmed; '' when there is none. */
export function lastNonBlankLine(text: string): string {
  let out = '';
  scanLinesFromEnd(text, (l) => {
    out = l;
    return true;
  });
  return out;
}
