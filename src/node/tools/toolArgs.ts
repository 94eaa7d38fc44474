// Parses a tool call's JSON arguments with zod and turns every problem into one sentence the model can act on.
import * as z from '../../engine/zod.js';
import { ToolError } from './types.js';

// Lenient at the edge: small models send null for an omitted argument, "20" for 20 and "true" for true.
const nullToUndefined = (v: unknown): unknown => (v === null ? undefined : v);

export function optionalInt(min: number, max: number): z.ZodMiniType<number | undefined> {
  return z.pipe(
    z.transform((v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : nullToUndefined(v))),
    z.optional(z.number().check(z.int(), z.gte(min), z.lte(max))),
  );
}

export function optionalBool(): z.ZodMiniType<boolean | undefined> {
  return z.pipe(
    z.transform((v) => (v === 'true' ? true : v === 'false' ? false : nullToUndefined(v))),
    z.optional(z.boolean()),
  );
}

export function optionalString(max: number): z.ZodMiniType<string | undefined> {
  return z.pipe(z.transform(nullToUndefined), z.optional(z.string().check(z.maxLength(max))));
}

/** How to describe each argument when it is missing or wrong. */
export type ArgHints = Readonly<Record<string, string>>;

/**
 * Parses `argsJson` (empty means `{}`) against `schema`, a strict object schema. Throws a ToolError
 * naming the tool, the wrong arguments, what they must be, and the allowed names.
 */
export function parseToolArgs<T>(tool: string, argsJson: string, schema: z.ZodMiniType<T>, hints: ArgHints): T {
  let raw: unknown = {};
  if (argsJson.trim() !== '') {
    try {
      raw = JSON.parse(argsJson);
    } catch {
      throw new ToolError(`Invalid arguments for ${tool}: not valid JSON. Send one JSON object, e.g. ${example(hints)}.`);
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ToolError(`Invalid arguments for ${tool}: expected a JSON object with ${allowed(hints)}.`);
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const given = raw as Record<string, unknown>;
  const problems = new Set<string>();
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      problems.add(`unknown argument ${issue.keys.map((k) => `"${k}"`).join(', ')} (allowed: ${allowed(hints)})`);
      continue;
    }
    const key = issue.path.map(String).join('.');
    const hint = hints[key] ?? issue.message;
    problems.add(given[key] === undefined || given[key] === null ? `missing required argument "${key}": ${hint}` : `"${key}": ${hint}`);
  }
  throw new ToolError(`Invalid arguments for ${tool}: ${[...problems].slice(0, 4).join('; ')}.`);
}

function allowed(hints: ArgHints): string {
  return Object.keys(hints).join(', ');
}

function example(hints: ArgHints): string {
  const first = Object.keys(hints)[0];
  return first === undefined ? '{}' : `{"${first}": ...}`;
}
