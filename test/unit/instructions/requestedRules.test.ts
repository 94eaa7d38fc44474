// Cursor's description-only rules offered like skills (listed by description, the body loaded on demand) and nested CLAUDE.md scoped like nested AGENTS.md.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolHost } from '../../../src/engine/ports.js';
import { ruleSkillName } from '../../../src/node/instructions/cursorRules.js';
import { InstructionToolHost } from '../../../src/node/instructions/instructionTools.js';
import { WorkspaceInstructions } from '../../../src/node/instructions/workspaceInstructions.js';
import { tempDir } from '../../support/tempDir.js';
import { put } from './instructionHelpers.js';

const NOTHING: ToolHost = { schemas: () => [], run: async () => ({ isError: false, content: 'inner' }) };
const signal = new AbortController().signal;

test('a Cursor rule with only a description is listed by it and loaded through the skill tool; always-on and glob rules are not skills', async (t) => {
  const ws = await tempDir(t, 'capsule-rules-');
  await put(
    ws,
    '.cursor/rules/API Style.mdc',
    '---\ndescription: How HTTP handlers are written. Use when adding an endpoint.\n---\n\nRULE-BODY-API: validate input first.\n',
  );
  await put(ws, '.cursor/rules/always.mdc', '---\nalwaysApply: true\ndescription: always\n---\nRULE-ALWAYS\n');
  await put(ws, '.cursor/rules/ts.mdc', '---\nglobs: src/**/*.ts\ndescription: ts files\n---\nRULE-TS\n');
  await put(ws, '.cursor/rules/manual.mdc', '---\nalwaysApply: false\n---\nRULE-MANUAL (no description: attached by hand only)\n');
  const instr = new WorkspaceInstructions({ roots: [ws], userDir: null });
  const read = await instr.read([]);
  assert.deepEqual(read.warnings, []);
  assert.deepEqual(
    instr.skills.map((s) => [s.name, s.where]),
    [['api-style', '.cursor/rules/API Style.mdc']],
  );
  const text = read.sources.map((s) => s.text).join('\n');
  assert.ok(text.includes('- api-style: How HTTP handlers are written. Use when adding an endpoint.'), 'listed by its description');
  assert.ok(!text.includes('RULE-BODY-API'), 'the body waits until asked for');
  assert.ok(text.includes('RULE-ALWAYS') && !text.includes('RULE-MANUAL'));

  const tools = new InstructionToolHost(NOTHING, instr);
  assert.ok(
    tools.schemas().some((s) => s.name === 'skill'),
    'the skill tool is offered for the rule',
  );
  const loaded = await tools.run('skill', JSON.stringify({ name: 'api-style' }), signal);
  assert.equal(loaded.isError, false);
  assert.equal(loaded.content, 'Skill "api-style" (.cursor/rules/API Style.mdc). Follow these instructions:\n\nRULE-BODY-API: validate input first.');
  const file = await tools.run('skill', JSON.stringify({ name: 'api-style', file: 'ts.mdc' }), signal);
  assert.equal(file.isError, true, 'a rule has no other files: its neighbours are not readable through it');
  assert.match(file.content, /single rule file/);

  const noCursor = new WorkspaceInstructions({ roots: [ws], userDir: null, families: ['agents'] });
  await noCursor.read([]);
  assert.deepEqual(noCursor.skills, [], 'the families setting without cursor reads no Cursor rule');
  const restricted = new WorkspaceInstructions({ roots: [ws], userDir: null, restricted: () => true });
  await restricted.read([]);
  assert.deepEqual(restricted.skills, []);
});

test('a rule named like an existing skill loses to the skill, with one warning; names come from file names', async (t) => {
  const ws = await tempDir(t, 'capsule-rules-');
  await put(ws, '.claude/skills/deploy/SKILL.md', '---\nname: deploy\ndescription: Deploy the app.\n---\nSKILL-DEPLOY\n');
  await put(ws, '.cursor/rules/deploy.mdc', '---\ndescription: Another deploy.\n---\nRULE-DEPLOY\n');
  const instr = new WorkspaceInstructions({ roots: [ws], userDir: null });
  const read = await instr.read([]);
  assert.deepEqual(
    instr.skills.map((s) => s.where),
    ['.claude/skills/deploy/SKILL.md'],
  );
  assert.deepEqual(read.warnings, ['Skill .cursor/rules/deploy.mdc skipped: the name "deploy" is already taken by .claude/skills/deploy/SKILL.md.']);
  assert.equal(ruleSkillName('My  Rule_v2.mdc'), 'my-rule-v2');
  assert.equal(ruleSkillName('___.mdc'), '');
});

test('a nested CLAUDE.md applies to work under its folder, like a nested AGENTS.md, and only with the claude family', async (t) => {
  const ws = await tempDir(t, 'capsule-nested-');
  await put(ws, 'CLAUDE.md', 'ROOT-CLAUDE\n');
  await put(ws, 'src/api/CLAUDE.md', 'API-CLAUDE: handlers return typed errors.\n');
  await put(ws, 'src/api/AGENTS.md', 'API-AGENTS\n');
  await put(ws, 'lib/CLAUDE.md', 'LIB-CLAUDE\n');
  const instr = new WorkspaceInstructions({ roots: [ws], userDir: null });
  const labels = async (touched: readonly string[], p = instr): Promise<string[]> => (await p.read(touched)).sources.map((s) => s.label);
  assert.deepEqual(await labels([]), ['CLAUDE.md']);
  assert.deepEqual(await labels(['src/api/handler.ts']), [
    'CLAUDE.md',
    'src/api/AGENTS.md (applies to work under src/api/)',
    'src/api/CLAUDE.md (applies to work under src/api/)',
  ]);
  const onlyAgents = new WorkspaceInstructions({ roots: [ws], userDir: null, families: ['agents'] });
  assert.deepEqual(await labels(['src/api/handler.ts', 'lib/a.ts'], onlyAgents), ['src/api/AGENTS.md (applies to work under src/api/)']);
  const text = (await instr.read(['src/api/handler.ts'])).sources.map((s) => s.text).join('\n');
  assert.ok(text.includes('API-CLAUDE: handlers return typed errors.') && !text.includes('LIB-CLAUDE'));
});
