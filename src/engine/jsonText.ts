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

/** JSON.parse, throwing a JsonTooDeepError (one line) for values nested deeper than MAX_JSON_DEPTH. */
export function parseJsonText(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  if (nestsDeeperThan(value)) throw new JsonTooDeepError(TOO_DEEP_MESSAGE);
  return value;
}
