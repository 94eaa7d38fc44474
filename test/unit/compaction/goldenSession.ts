// Test helper: a deterministic session that exercises every way the ledger, the fallback capsule and the archive read a tool call (recorded effects, exit-code formats, test summaries, patches, shell effects, plans, skills, errors, truncation markers).
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { Chain } from './harness.js';

const WORDS = 'const let function return await async import export from type value index parse render token cache entry branch'.split(' ');

/** Deterministic filler text: `n` lines of code-like words. */
function code(seed: number, n: number): string {
  let s = seed >>> 0;
  const word = (): string => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return WORDS[s % WORDS.length] ?? 'x';
  };
  return Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(3)}  ${Array.from({ length: 7 }, word).join(' ')};`).join('\n');
}

/** The result of a tool call, optionally with recorded effects. */
function result(
  c: Chain,
  name: string,
  args: Readonly<Record<string, unknown>>,
  content: string,
  opts: { isError?: boolean; effects?: Record<string, unknown> } = {},
): void {
  c.tool(name, args, content, opts.isError ?? false);
  if (opts.effects === undefined) return;
  const last = c.entries.pop();
  if (last?.type !== 'tool_result') throw new Error('golden session: expected a tool result');
  c.entries.push({ ...last, effects: { source: 'measured', created: [], modified: [], deleted: [], renamed: [], read: [], ...opts.effects } } as Entry);
}

/** One varied turn; `i` picks which formats it uses, so a few dozen turns cover them all several times. */
function turn(c: Chain, i: number, open: boolean): void {
  const file = `src/area${i % 5}/mod${i}.ts`;
  c.user(i % 4 === 0 ? `Fix \`parseConfig\` in /w/${file} (issue #${100 + i}, v1.${i}.0); keep snake_case_names` : `Please fix the bug in ${file}`);
  result(c, 'read_file', { path: i % 3 === 0 ? `/w/${file}` : `./${file}` }, code(i, 12), i % 2 === 0 ? { effects: { read: [file] } } : {});
  switch (i % 7) {
    case 0:
      result(c, 'edit_file', { path: file, patch: 'x' }, `Edited ${file}`, { effects: { modified: [file] } });
      break;
    case 1:
      result(
        c,
        'apply_patch',
        { input: `*** Begin Patch\n*** Add File: src/new${i}.ts\n+export {};\n*** Update File: ${file}\n*** Move to: src/moved${i}.ts\n*** End Patch` },
        'Done',
      );
      break;
    case 2:
      result(c, 'run_command', { command: `mv src/old${i}.ts src/renamed${i}.ts && rm -f tmp${i}.log && touch notes${i}.md` }, 'exit code 0');
      break;
    case 3:
      result(c, 'write_file', { path: `src/gen${i}.ts`, content: 'x' }, 'Error: File does not exist', { isError: i % 2 === 1 });
      break;
    case 4:
      result(c, 'load_skill', { name: `skill-${i % 2}` }, 'Skill loaded');
      break;
    case 5:
      result(
        c,
        'update_plan',
        {
          plan: [
            { step: `Fix mod${i}`, status: 'in_progress' },
            { step: 'Run the tests', status: 'pending' },
          ],
        },
        'Plan updated',
      );
      break;
    default:
      result(c, 'grep', { pattern: 'parseConfig', path: 'src' }, `src/area1/mod${i}.ts:3: parseConfig()`);
  }
  const test = i % 6;
  if (test === 0) result(c, 'run_command', { command: 'npm test' }, `${code(i + 1, 6)}\n3 passed, 1 failed\nexit code 1`);
  else if (test === 1)
    result(c, 'run_command', { command: 'npm test 2>&1 | tail -n 5' }, `<returncode>0</returncode>\n<output>\n# pass 5\n# fail 2\n</output>`);
  else if (test === 2)
    result(c, 'shell', { command: ['bash', '-lc', 'pytest -q'] }, JSON.stringify({ output: '12 passed in 0.4s', metadata: { exit_code: 0 } }));
  else if (test === 3) result(c, 'run_command', { command: 'node --test test/a.test.js', cwd: 'pkg' }, `Exit code: 2\n${code(i + 2, 4)}\nnot ok 1 - a`);
  else if (test === 4)
    result(c, 'run_command', { command: 'make build' }, `${code(i + 3, 3)}\n  killed after timeout (120s)\nmore`, {
      effects: { exitCode: null, timedOut: true, failed: true },
    });
  else result(c, 'run_command', { command: 'cat README.md' }, `${code(i + 4, 50)}\n[... 40 lines truncated ...]\n${code(i + 5, 20)}`);
  if (!open) c.assistant(i % 3 === 0 ? `Fixed ${file}: ${code(i + 6, 1)}` : '');
}

/** `turns` turns; the last one is left open (no final answer) when `open`. */
export function goldenSession(turns: number, open = false, c = new Chain()): Entry[] {
  for (let i = 1; i <= turns; i++) turn(c, i, open && i === turns);
  return c.entries;
}

/** More turns after `entries` (continuing the chain from its leaf); ids do not collide with the first part. */
export function moreTurns(entries: readonly Entry[], from: number, turns: number): Entry[] {
  const c = new Chain();
  for (const e of entries) c.add(e);
  // Chain numbers ids by its own counter; skip past the ones already used.
  for (let i = 0; i < entries.length; i++) c.assistant('');
  c.entries.splice(entries.length);
  for (let i = from; i < from + turns; i++) turn(c, i, false);
  return c.entries.slice(entries.length);
}
