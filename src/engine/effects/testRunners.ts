// Recognises test runs (every mainstream runner, through pipes and wrappers) and reads a runner's summary line from its output.
import { scanLinesFromEnd } from './textLines.js';

const RUNNERS: readonly RegExp[] = [
  /\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:test|t)(?::[\w:-]+)?\b/,
  /\b(?:npm|pnpm|yarn)\s+run\s+[\w:-]*test[\w:-]*/,
  /\b(?:vitest|jest|mocha|ava)\b/,
  /\bplaywright\s+test\b/,
  /\bnode\s+(?:\S+\s+)*--test\b/,
  /\b(?:pytest|py\.test)\b/,
  /\bpython[\d.]*\s+-m\s+(?:pytest|unittest)\b/,
  /\b(?:tox|nox)\b/,
  /\bgo\s+test\b/,
  /\bcargo\s+(?:test|nextest)\b/,
  /\bmix\s+test\b/,
  /\brspec\b/,
  /\b(?:rake|rails)\s+test\b/,
  /\bruby\s+(?:\S+\s+)*-Itest\b/,
  /\bphpunit\b/,
  /\bpest\b/,
  /\bdotnet\s+test\b/,
  /\bgradlew?\s+(?:\S+\s+)*(?:test|check)\b/,
  /\bmvnw?\s+(?:\S+\s+)*(?:test|verify)\b/,
  /\bctest\b/,
  /\bmake\s+(?:\S+\s+)*(?:test|check)\b/,
  /\bdeno\s+test\b/,
  /\bswift\s+test\b/,
  /\bruntests\.py\b/,
];

/** Custom patterns (the `capsule.ledger.testCommands` setting) compiled once; invalid ones are reported, not thrown. */
export function compileTestPatterns(patterns: readonly string[]): { readonly patterns: RegExp[]; readonly errors: string[] } {
  const out: RegExp[] = [];
  const errors: string[] = [];
  for (const p of patterns) {
    try {
      out.push(new RegExp(p));
    } catch (err) {
      errors.push(`testCommands: '${p}' is not a valid regular expression (${err instanceof Error ? err.message : String(err)})`);
    }
  }
  return { patterns: out, errors };
}

/** True for commands that run a test suite; `extra` are project-specific patterns. */
export function isTestCommand(command: string, extra: readonly RegExp[] = []): boolean {
  return RUNNERS.some((re) => re.test(command)) || extra.some((re) => re.test(command));
}

/** Lines runners end with: "12 passed, 1 failed", "test result: ok.", "Tests: 3 failed", "# fail 0", "OK (12 tests…)", "BUILD FAILED". */
const SUMMARY: readonly RegExp[] = [
  /\b\d+\s+(?:passed|failed|passing|failing|failures?|errors?|examples?|tests?)\b/i,
  /^test result: (?:ok|FAILED)\b/,
  /^(?:ok|FAIL)\s+\S+/,
  /^# (?:pass|fail|tests) \d+/,
  /^OK \(\d+ tests?/,
  /^(?:Passed|Failed)!\s+-/,
  /^BUILD (?:SUCCESSFUL|FAILED)/,
  /\btests? passed, \d+ tests? failed/,
  /^(?:FAILED \(|OK$|OK \(skipped)/,
];

/** The runner's last summary line in `output`, trimmed to one line; node --test's "# pass"/"# fail" pair is joined. */
export function testSummary(output: string): string | undefined {
  // Only a text that mentions a TAP count can have the pair; the lines are read from the end, and only as far as needed.
  if (output.includes('# pass') || output.includes('# fail')) {
    const tap: string[] = [];
    scanLinesFromEnd(output, (l) => {
      if (/^# (?:pass|fail) \d+$/.test(l)) tap.unshift(l);
      return tap.length === 2;
    });
    if (tap.length === 2) return tap.map((l) => l.slice(2)).join(', ');
  }
  let found: string | undefined;
  scanLinesFromEnd(output, (l) => {
    if (/^exit code -?\d+$/.test(l) || /^<\/?(?:returncode|output)>/.test(l)) return false;
    if (!SUMMARY.some((re) => re.test(l))) return false;
    found = l.replace(/^=+\s*|\s*=+$/g, '').slice(0, 200);
    return true;
  });
  return found;
}

/** True when a summary line reports failures ("1 failed", "FAILED", "fail 2"), false when it reports none, undefined when it cannot tell. */
export function summaryFailed(summary: string): boolean | undefined {
  const counts = [...summary.matchAll(/\b(\d+)\s+(?:failed|failing|failures?|errors?)\b|\bfail(?:ed|ures)?:?\s+(\d+)/gi)];
  if (counts.length > 0) return counts.some((m) => Number(m[1] ?? m[2] ?? '0') > 0);
  if (/\bFAILED\b|^FAIL\b|Failed!/.test(summary)) return true;
  if (/^OK\b/.test(summary)) return false;
  if (/\bpassed\b|\bpassing\b|^ok\b|\bOK\b|SUCCESSFUL|Passed!/i.test(summary)) return false;
  return undefined;
}
