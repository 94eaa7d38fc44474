// A tiny sequential test runner for the extension host, where node:test cannot report and mocha is not a dependency.

export interface HostTest {
  readonly name: string;
  readonly fn: () => Promise<void>;
}

/** A hung test would keep VS Code open forever; this bounds each one (a guard, not a speed assertion). */
const HANG_GUARD_MS = 60_000;

function describe(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

async function withHangGuard(t: HostTest): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`"${t.name}" did not finish within ${HANG_GUARD_MS / 1000} s`)), HANG_GUARD_MS);
  });
  try {
    await Promise.race([t.fn(), hang]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs the tests in order (later ones may rely on the extension activated by earlier ones), prints TAP-like
 * lines to the launcher's terminal, and rejects if any failed so VS Code exits non-zero.
 */
export async function runHostTests(tests: readonly HostTest[]): Promise<void> {
  const failed: string[] = [];
  console.log(`TAP version 13\n1..${tests.length}`);
  for (const [i, t] of tests.entries()) {
    try {
      await withHangGuard(t);
      console.log(`ok ${i + 1} - ${t.name}`);
    } catch (err) {
      failed.push(t.name);
      console.log(`not ok ${i + 1} - ${t.name}`);
      console.log(describe(err).replace(/^/gm, '  # '));
    }
  }
  console.log(`# pass ${tests.length - failed.length}\n# fail ${failed.length}`);
  if (failed.length > 0) throw new Error(`${failed.length} of ${tests.length} extension-host tests failed: ${failed.join('; ')}`);
}
