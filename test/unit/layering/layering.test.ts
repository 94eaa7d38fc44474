// The layering rules (docs/ARCHITECTURE.md): src/engine stays pure, only src/vscode touches `vscode`, the webview imports types only (but for the shared modules), no import cycles, the engine's folders in order.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { ENGINE_ORDER, HOST_ORDER, importCycles, importGraph, orderViolations } from './importGraph.js';
import { engineViolations, isNodeBuiltin, scanDomGlobals, scanImports } from './importScanner.js';

const ROOT = join(__dirname, '..', '..', '..');

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out.sort();
}

function rel(abs: string): string {
  return relative(ROOT, abs).split(sep).join('/');
}

function resolverFor(file: string): (specifier: string) => string {
  return (s) => rel(resolve(dirname(file), s));
}

test('src/engine imports no vscode, openai, Node built-ins or DOM, and nothing outside src/engine', () => {
  const files = tsFiles(join(ROOT, 'src', 'engine'));
  assert.ok(files.length >= 5, 'expected engine sources');
  const problems = files.flatMap((f) => engineViolations(rel(f), readFileSync(f, 'utf8'), resolverFor(f)));
  assert.deepEqual(problems, []);
});

test('src/ bundles only zod/mini: the protocol imports it directly, everything else through src/engine/zod.ts (which registers the English messages)', () => {
  const offenders: string[] = [];
  for (const f of tsFiles(join(ROOT, 'src'))) {
    const r = rel(f);
    for (const ref of scanImports(r, readFileSync(f, 'utf8'))) {
      if (ref.typeOnly || ref.specifier === undefined || !/^zod(\/|$)/.test(ref.specifier)) continue;
      const allowed = ref.specifier === 'zod/mini' && (r === 'src/engine/zod.ts' || r.startsWith('src/protocol/'));
      if (!allowed) offenders.push(`${r}:${ref.line}: ${ref.specifier}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test("only src/vscode and src/extension.ts import 'vscode'", () => {
  const offenders: string[] = [];
  for (const f of [...tsFiles(join(ROOT, 'src')), ...tsFiles(join(ROOT, 'webview'))]) {
    const r = rel(f);
    if (r === 'src/extension.ts' || r.startsWith('src/vscode/')) continue;
    for (const ref of scanImports(r, readFileSync(f, 'utf8'))) if (ref.specifier === 'vscode') offenders.push(`${r}:${ref.line}`);
  }
  assert.deepEqual(offenders, []);
});

/**
 * The modules of src/protocol the webview may take at runtime, each with every file its runtime imports reach: plain
 * data, pure formatting, and the message schemas, which import zod's tree-shakable `zod/mini` and nothing else (full
 * `zod` would add about 190 KB to the webview bundle).
 */
const PROTOCOL_SCHEMAS = [
  'src/protocol/chatState.ts',
  'src/protocol/commands.ts',
  'src/protocol/limits.ts',
  'src/protocol/messages.ts',
  'src/protocol/transcript.ts',
  'src/protocol/views.ts',
];
const SHARED_AT_RUNTIME: Readonly<Record<string, readonly string[]>> = {
  'src/protocol/messages.ts': PROTOCOL_SCHEMAS,
  'src/protocol/limits.ts': ['src/protocol/limits.ts'],
  'src/protocol/format.ts': ['src/engine/tokens/figures.ts', 'src/protocol/format.ts'],
  'src/protocol/pathRefs.ts': ['src/protocol/pathRefs.ts'],
  'src/protocol/commands.ts': ['src/protocol/commands.ts'],
};

/** The files reached from `start` through runtime imports, and the package imports met on the way. */
function runtimeClosure(start: string): { files: string[]; packages: string[] } {
  const seen = new Set<string>();
  const packages: string[] = [];
  const todo = [start];
  while (todo.length > 0) {
    const r = todo.pop() as string;
    if (seen.has(r)) continue;
    seen.add(r);
    for (const ref of scanImports(r, readFileSync(join(ROOT, r), 'utf8'))) {
      if (ref.typeOnly || ref.specifier === undefined) continue;
      if (ref.specifier.startsWith('.')) todo.push(resolverFor(join(ROOT, r))(ref.specifier).replace(/\.js$/, '.ts'));
      else packages.push(`${r}: ${ref.specifier}`);
    }
  }
  return { files: [...seen].sort(), packages };
}

test('the webview reaches into src/ only for src/protocol, and only with type imports (the limits table, the formatting, the path detector, the command catalog and the message schemas excepted)', () => {
  for (const [shared, closure] of Object.entries(SHARED_AT_RUNTIME)) {
    const reach = runtimeClosure(shared);
    assert.deepEqual(
      { files: reach.files, packages: reach.packages.filter((p) => !p.endsWith(': zod/mini')) },
      { files: closure, packages: [] },
      `${shared} reaches only what the webview may bundle`,
    );
  }
  const problems: string[] = [];
  const files = tsFiles(join(ROOT, 'webview'));
  assert.ok(files.length > 0);
  for (const f of files) {
    const r = rel(f);
    for (const ref of scanImports(r, readFileSync(f, 'utf8'))) {
      const s = ref.specifier;
      if (s === undefined) {
        problems.push(`${r}:${ref.line}: computed ${ref.kind}`);
        continue;
      }
      if (isNodeBuiltin(s)) problems.push(`${r}:${ref.line}: Node built-in ${s} in browser code`);
      if (!s.startsWith('.')) continue;
      const target = resolverFor(f)(s);
      if (!target.startsWith('src/')) continue;
      if (!target.startsWith('src/protocol/')) problems.push(`${r}:${ref.line}: imports ${target}; only src/protocol is shared`);
      else if (!ref.typeOnly && SHARED_AT_RUNTIME[target.replace(/\.js$/, '.ts')] === undefined)
        problems.push(
          `${r}:${ref.line}: imports ${s} at runtime; use \`import type\` (only the limits table, the formatting, the path detector, the command catalog and the message schemas are shared as code)`,
        );
    }
  }
  assert.deepEqual(problems, []);
});

test('no import cycles anywhere under src/ and webview/ (type imports count)', () => {
  const graph = importGraph(ROOT, ['src', 'webview']);
  assert.ok(graph.size > 50, 'expected the whole source tree');
  assert.deepEqual(importCycles(graph), []);
});

test(`the engine's folders depend one way: ${ENGINE_ORDER.join(' ← ')}`, () => {
  const graph = importGraph(ROOT, ['src/engine']);
  const folders = new Set([...graph.keys()].map((f) => f.split('/')[2] ?? '').filter((f) => !f.endsWith('.ts')));
  assert.deepEqual([...folders].sort(), [...ENGINE_ORDER].sort(), 'every engine folder has a place in the order');
  assert.deepEqual(orderViolations(graph, 'src/engine/', ENGINE_ORDER), []);
});

test(`the host layer depends one way: ${HOST_ORDER.join(' ← ')} ← extension.ts`, () => {
  const graph = importGraph(ROOT, ['src/vscode']);
  const folders = new Set([...graph.keys()].map((f) => f.split('/')[2] ?? ''));
  assert.deepEqual([...folders].sort(), [...HOST_ORDER].sort(), 'every file of src/vscode sits in one of the layers');
  assert.deepEqual(orderViolations(graph, 'src/vscode/', HOST_ORDER), []);
  const intoExtension = [...importGraph(ROOT, ['src']).entries()].filter(([, to]) => to.includes('src/extension.ts')).map(([from]) => from);
  assert.deepEqual(intoExtension, [], 'extension.ts only composes; nothing imports it');
});

test('only the settings service reads or writes the configuration', () => {
  const offenders: string[] = [];
  for (const f of [...tsFiles(join(ROOT, 'src'))]) {
    const r = rel(f);
    if (r === 'src/vscode/services/settings.ts') continue;
    readFileSync(f, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/\bgetConfiguration\s*\(|\bConfigurationTarget\b/.test(line)) offenders.push(`${r}:${i + 1}`);
      });
  }
  assert.deepEqual(offenders, []);
});

test('no file in the repository refers to anything outside it', () => {
  const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.(ts|mjs|js|json|md|sh|css|html|yml)$/.test(f) || f === '.ci/run');
  assert.ok(tracked.length > 100, 'expected the tracked files');
  const outside = /\.\.\/shared\b|\b(SPEC|DESIGN|TESTING)\.md\b/;
  const offenders = tracked.filter((f) => f !== 'package-lock.json' && outside.test(readFileSync(join(ROOT, f), 'utf8')));
  assert.deepEqual(offenders, []);
});

test('the cycle finder and the order check catch what they should', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['d.ts']],
    ['e.ts', ['a.ts']],
  ]);
  assert.deepEqual(importCycles(graph), [['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
  const layered = new Map([
    ['p/low/x.ts', ['p/low/y.ts']],
    ['p/high/z.ts', ['p/low/x.ts']],
    ['p/low/y.ts', ['p/high/z.ts', 'p/top.ts']],
  ]);
  assert.deepEqual(orderViolations(layered, 'p/', ['low', 'high']), ['p/low/y.ts imports p/high/z.ts (low may not depend on high)']);
});

test('the scanner catches every kind of breach in a synthetic engine file', () => {
  const text = [
    "import * as vscode from 'vscode';",
    "import type { ExtensionContext } from 'vscode';",
    "import { readFile } from 'fs/promises';",
    "import { join } from 'node:path';",
    "export { default } from 'openai';",
    "import OpenAI from 'openai/resources';",
    "const os = require('os');",
    "const m = await import('node:crypto');",
    'const x = await import(someName);',
    "type C = typeof import('vscode');",
    "import { store } from '../../node/jsonlStore.js';",
    '// a comment about the context window. is fine',
    "const s = 'document.title in a string is fine';",
    'const title = document.title;',
    'window.addEventListener("x", () => {});',
    'globalThis.navigator.userAgent;',
  ].join('\n');
  const problems = engineViolations('src/engine/fake.ts', text, (s) => rel(resolve(ROOT, 'src/engine/tokens', s)));
  const expectLine = (line: number, what: RegExp): void => {
    assert.ok(
      problems.some((p) => p.startsWith(`src/engine/fake.ts:${line}:`) && what.test(p)),
      `line ${line} not flagged as ${what}: ${problems.join('\n')}`,
    );
  };
  expectLine(1, /vscode/);
  expectLine(2, /vscode/);
  expectLine(3, /built-in fs\/promises/);
  expectLine(4, /built-in node:path/);
  expectLine(5, /openai/);
  expectLine(6, /openai\/resources/);
  expectLine(7, /built-in os/);
  expectLine(8, /built-in node:crypto/);
  expectLine(9, /computed specifier/);
  expectLine(10, /vscode/);
  expectLine(11, /outside src\/engine/);
  expectLine(14, /DOM global document/);
  expectLine(15, /DOM global window/);
  expectLine(16, /DOM global navigator/);
  assert.ok(!problems.some((p) => /:1[23]:/.test(p)), 'comments and strings must not count');
  assert.equal(problems.length, 14);
});

test('the scanner allows what the engine may use', () => {
  const text = [
    "import { z } from 'zod';",
    "import { encode } from 'gpt-tokenizer';",
    "import type { Entry } from '../transcript/schema.js';",
    'function f(window: { start: number }) { return window.start; }',
  ].join('\n');
  assert.deepEqual(
    engineViolations('src/engine/tokens/ok.ts', text, (s) => rel(resolve(ROOT, 'src/engine/tokens', s))),
    [],
  );
  assert.deepEqual(scanDomGlobals('x.ts', text), []);
});

test('type-only imports are recognised, runtime ones are not', () => {
  const refs = scanImports(
    'webview/x.ts',
    [
      "import type { A } from '../src/protocol/messages.js';",
      "import { type B, type C } from '../src/protocol/messages.js';",
      "import { D } from '../src/protocol/messages.js';",
      "import { type E, F } from '../src/protocol/messages.js';",
      "import '../src/protocol/messages.js';",
      "export type { G } from '../src/protocol/messages.js';",
    ].join('\n'),
  );
  assert.deepEqual(
    refs.map((r) => r.typeOnly),
    [true, true, false, false, false, true],
  );
});
