// The instruction reader: every family and its scoping, the families setting, Restricted Mode, and bad input (huge, binary, FIFO, link out, import cycle, bad or duplicate skills) as one-line warnings naming the file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { globMatches } from '../../../src/engine/instructions/glob.js';
import { parseFrontMatter } from '../../../src/engine/instructions/frontMatter.js';
import { WorkspaceInstructions } from '../../../src/node/instructions/workspaceInstructions.js';
import { tempDir } from '../../support/tempDir.js';
import { put } from './instructionHelpers.js';

test('globs: ** crosses folders, * stays in one, braces choose, a bare pattern matches a name anywhere', () => {
  assert.equal(globMatches('**/*.ts', 'src/a/b.ts'), true);
  assert.equal(globMatches('**/*.ts', 'b.ts'), true);
  assert.equal(globMatches('src/*.ts', 'src/a/b.ts'), false);
  assert.equal(globMatches('src/**/*.{ts,tsx}', 'src/x/y.tsx'), true);
  assert.equal(globMatches('*.py', 'tools/gen.py'), true);
  assert.equal(globMatches('docs/**', 'src/docs.md'), false);
});

test('front matter: scalars, quotes, lists, folded blocks; an unclosed block is an error', () => {
  const r = parseFrontMatter('---\nname: "a-b"\nalwaysApply: true\nglobs: ["*.ts", "*.tsx"]\ndescription: >\n  two\n  lines\n---\nBody\n');
  assert.ok(r.ok);
  assert.equal(r.value.fields.get('name'), 'a-b');
  assert.equal(r.value.fields.get('alwaysApply'), true);
  assert.deepEqual(r.value.fields.get('globs'), ['*.ts', '*.tsx']);
  assert.equal(r.value.fields.get('description'), 'two lines');
  assert.equal(r.value.body, 'Body\n');
  assert.equal(parseFrontMatter('---\nname: x\nBody').ok, false);
});

test('every family is read with its scope; the families setting and Restricted Mode choose what is read', async (t) => {
  const ws = await tempDir(t, 'capsule-instr-');
  const user = await tempDir(t, 'capsule-user-');
  await put(user, 'AGENTS.md', 'USER-RULE');
  await put(ws, 'AGENTS.md', 'AGENTS-RULE');
  await put(ws, 'CLAUDE.md', 'CLAUDE-RULE see @docs/style.md and mail me@example or @octocat');
  await put(ws, 'docs/style.md', 'STYLE-RULE');
  await put(ws, 'CLAUDE.local.md', 'LOCAL-RULE');
  await put(ws, '.github/copilot-instructions.md', 'COPILOT-RULE');
  await put(ws, '.github/instructions/py.instructions.md', '---\napplyTo: "**/*.py"\n---\nPY-RULE');
  await put(ws, '.clinerules/01-style.md', 'CLINE-RULE');
  await put(ws, '.cursor/rules/always.mdc', '---\nalwaysApply: true\n---\nCURSOR-ALWAYS');
  await put(ws, '.cursor/rules/ts.mdc', '---\nglobs: src/**/*.ts\nalwaysApply: false\n---\nCURSOR-TS');
  await put(ws, '.cursor/rules/manual.mdc', '---\ndescription: only when asked\n---\nCURSOR-MANUAL');
  const all = new WorkspaceInstructions({ roots: [ws], userDir: user });
  const text = async (touched: readonly string[], p = all): Promise<string> => (await p.read(touched)).sources.map((s) => `${s.label}:${s.text}`).join('\n');
  const none = await text([]);
  for (const rule of ['USER-RULE', 'AGENTS-RULE', 'CLAUDE-RULE', 'STYLE-RULE', 'LOCAL-RULE', 'COPILOT-RULE', 'CLINE-RULE', 'CURSOR-ALWAYS'])
    assert.ok(none.includes(rule), rule);
  for (const rule of ['PY-RULE', 'CURSOR-TS', 'CURSOR-MANUAL']) assert.ok(!none.includes(rule), `${rule} waits for a matching path`);
  assert.ok(none.indexOf('USER-RULE') < none.indexOf('AGENTS-RULE'), "the user's file comes first");
  const worked = await text(['tools/gen.py', 'src/a/b.ts']);
  assert.ok(worked.includes('PY-RULE') && worked.includes('CURSOR-TS') && !worked.includes('CURSOR-MANUAL'));
  const onlyAgents = await text([], new WorkspaceInstructions({ roots: [ws], userDir: user, families: ['agents'] }));
  assert.ok(onlyAgents.includes('AGENTS-RULE') && !onlyAgents.includes('CLAUDE-RULE') && !onlyAgents.includes('USER-RULE'));
  const restricted = new WorkspaceInstructions({ roots: [ws], userDir: user, restricted: () => true });
  assert.deepEqual((await restricted.read(['src/a/b.ts'])).sources, []);
});

test('bad input: each file gets one warning naming it, and everything else still loads', async (t) => {
  const ws = await tempDir(t, 'capsule-instr-');
  const outside = await tempDir(t, 'capsule-outside-');
  await put(outside, 'secret.md', 'OUTSIDE');
  await put(ws, 'AGENTS.md', 'GOOD-RULE');
  await writeFile(join(ws, 'CLAUDE.md'), 'x'.repeat(600 * 1024));
  await writeFile(join(ws, 'CLAUDE.local.md'), Buffer.from([0x41, 0x00, 0x42]));
  execFileSync('mkfifo', [join(ws, '.clinerules')]);
  await mkdir(join(ws, '.github'), { recursive: true });
  await symlink(join(outside, 'secret.md'), join(ws, '.github/copilot-instructions.md'));
  await put(ws, '.claude/CLAUDE.md', 'CYCLE-A @a.md');
  await put(ws, '.claude/a.md', 'CYCLE-B @CLAUDE.md');
  await put(ws, '.capsule/skills/bad/SKILL.md', '---\nname: Bad Name\ndescription: x\n---\nbody');
  await put(ws, '.capsule/skills/ok/SKILL.md', '---\nname: ok\ndescription: fine\n---\nbody');
  await put(ws, '.claude/skills/ok/SKILL.md', '---\nname: ok\ndescription: again\n---\nbody');
  await put(ws, '.github/skills/nofm/SKILL.md', 'just text');
  const r = await new WorkspaceInstructions({ roots: [ws], userDir: null }).read([]);
  const w = r.warnings;
  const has = (re: RegExp): boolean => w.some((x) => re.test(x));
  assert.ok(has(/^Instruction file CLAUDE\.md skipped: it is 600 KB/), 'huge');
  assert.ok(has(/^Instruction file CLAUDE\.local\.md skipped: it is binary/), 'binary');
  assert.ok(has(/^Instruction file \.clinerules skipped: it is a named pipe \(FIFO\)/), 'fifo');
  assert.ok(has(/^Instruction file \.github\/copilot-instructions\.md skipped: it links out of the workspace/), 'link out');
  assert.ok(has(/^Instruction file \.claude\/a\.md: @CLAUDE\.md makes an import cycle/) || has(/import cycle/), 'cycle');
  assert.ok(has(/^Skill \.capsule\/skills\/bad\/SKILL\.md skipped: the name "Bad Name"/), 'bad name');
  assert.ok(has(/^Skill \.claude\/skills\/ok\/SKILL\.md skipped: the name "ok" is already taken by \.capsule\/skills\/ok\/SKILL\.md/), 'duplicate');
  assert.ok(has(/^Skill \.github\/skills\/nofm\/SKILL\.md skipped: no front matter/), 'no front matter');
  for (const x of w) assert.ok(!x.includes('\n'), `one line: ${x}`);
  const text = r.sources.map((s) => s.text).join('\n');
  assert.ok(text.includes('GOOD-RULE') && text.includes('CYCLE-A') && text.includes('CYCLE-B'));
  assert.ok(!text.includes('OUTSIDE'));
  assert.ok(text.includes('- ok: fine'));
});
