// Upgrades raw header/entry objects from older session versions to CURRENT_VERSION before validation.
import { CURRENT_VERSION } from './schema.js';

export type MigrateResult = { readonly ok: true; readonly migrate: (raw: unknown) => unknown } | { readonly ok: false; readonly error: string };

type Step = (raw: Record<string, unknown>) => Record<string, unknown>;

/** STEPS[v] upgrades an object written by version v to version v + 1. Version 1 is the first format. */
const STEPS: Readonly<Record<number, Step>> = {};

/** Returns the function that upgrades every line of a file written by `version`, or why it cannot. */
export function migrationFor(version: number): MigrateResult {
  if (!Number.isInteger(version) || version < 1) return { ok: false, error: `invalid session version ${String(version)}` };
  if (version > CURRENT_VERSION) {
    return { ok: false, error: `session version ${version} is newer than this Capsule supports (${CURRENT_VERSION}); opened read-only` };
  }
  const steps: Step[] = [];
  for (let v = version; v < CURRENT_VERSION; v++) {
    const step = STEPS[v];
    if (!step) return { ok: false, error: `no migration from session version ${v}` };
    steps.push(step);
  }
  return {
    ok: true,
    migrate: (raw) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
      let obj = raw as Record<string, unknown>;
      for (const step of steps) obj = step(obj);
      return obj;
    },
  };
}
