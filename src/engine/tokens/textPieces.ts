// Splits long texts into pieces the BPE encoder can count in linear time, at boundaries where the count stays exact.

/**
 * tiktoken's byte-pair merge is quadratic in the length of one pre-token, so one 256 KB run of `x` takes about a minute. Texts longer
 * than this are counted piece by piece; no piece is longer, so no pre-token is either.
 */
export const PIECE_CHARS = 512;

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * A cut before index i where both encodings' pre-tokenizers always end a token, so counting the two sides separately gives
 * the same total: before the space of "letter space letter" (a word never swallows the space after it) and after
 * a newline followed by a letter (no pattern carries a newline into a word).
 */
function isSafeBoundary(text: string, i: number): boolean {
  const here = text.charCodeAt(i);
  if (here === 32) return isAsciiLetter(text.charCodeAt(i - 1)) && isAsciiLetter(text.charCodeAt(i + 1));
  return isAsciiLetter(here) && text.charCodeAt(i - 1) === 10;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * End offset of the piece starting at `start`: the last safe boundary in the second half of the window, else a
 * forced cut at the window's end (never inside a surrogate pair). Only forced cuts can change the count, and only
 * inside runs with no word boundary for half a window (one letter, base64 of zeros, separator lines); the unit
 * tests bound that change well inside the 5% tokenizer margin.
 */
function pieceEnd(text: string, start: number, window: number): number {
  const limit = start + window;
  if (limit >= text.length) return text.length;
  for (let i = limit; i > start + window / 2; i--) if (isSafeBoundary(text, i)) return i;
  return isLowSurrogate(text.charCodeAt(limit)) ? limit - 1 : limit;
}

/** The [start, end) offsets of the pieces of `text`, in order; one piece when the text is short. */
export function* textPieces(text: string, window = PIECE_CHARS): Generator<readonly [number, number]> {
  let start = 0;
  while (start < text.length) {
    const end = pieceEnd(text, start, window);
    yield [start, end];
    start = end;
  }
}
