// JSON.parse for what Capsule reads from files (sessions, imports, capsules, state), refusing values nested deeper than any real conversation in one clear line.

/**
 * JSON.parse itself copes with any depth, but what walks the value afterwards (validation, JSON.stringify, the
 * importers) recurses and dies with "Maximum call stack size exceeded" somewhere near 10,000 levels. No chat message,
 * tool call or capsule nests anywhere near this deep.
 */
const MAX_JSON_DEPTH = 1_000;

export class JsonTooDeepError extends Error {
  override readonly name = 'JsonTooDeepError';
}

// Grouped by hand, not with toLocaleString: this runs when the bundle loads, and Intl's first use starts ICU, which cost tens of milliseconds of activation.
const TOO_DEEP_MESSAGE = `JSON nested more than ${String(MAX_JSON_DEPTH).replace(/\B(?=(\d{3})+$)/g, ',')} levels deep; no conversation nests like that, so it is refused`;

/**
 * Whether a parsed value nests arrays/objects deeper than `limit`. Iterative (an explicit stack), so it cannot
 * overflow itself; it visits values, not characters, so a megabyte string costs one step.
 */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: { readonly v: unknown; readonly d: number }[] = [{ v: value, d: 0 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { v, d } = top;
    if (typeof v !== 'object' || v === null) continue;
    if (d + 1 > limit) return true;
    const children: readonly unknown[] = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push({ v: c, d: d + 1 });
  }
  return false;
}

/**
 * Whether `text` holds at least `n` opening brackets. A value nested deeper than the limit needs one per level, so
 * fewer means the walk cannot find anything; brackets inside strings only make this answer yes more often. indexOf
 * runs natively, so the usual line (a few dozen brackets) costs far less than walking its parsed value.
 */
function bracketsAtLeast(text: string, n: number): boolean {
  let count = 0;
  for (const open of ['{', '[']) {
    for (let i = text.indexOf(open); i !== -1; i = text.indexOf(open, i + 1)) if (++count >= n) return true;
  }
  return false;
}

/** JSON.parse, throwing a JsonTooDeepError (one line) for values nested deeper than MAX_JSON_DEPTH. */
export function parseJsonText(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  // Deeper than the limit means containers at depths 0…limit: limit + 1 opening brackets at least.
  if (bracketsAtLeast(text, MAX_JSON_DEPTH + 1) && nestsDeeperThan(value)) throw new JsonTooDeepError(TOO_DEEP_MESSAGE);
  return value;
}
