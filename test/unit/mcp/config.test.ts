// MCP configuration: the Claude Code, VS Code and setting shapes, variables, and one clear line for each bad input (the other servers still load).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ApprovalFile, serverFingerprint } from '../../../src/node/mcp/serverApprovals.js';
import { loadMcpConfig } from '../../../src/node/mcp/configLoad.js';
import { parseMcpDocument } from '../../../src/node/mcp/configParse.js';
import { problemLine } from '../../../src/node/mcp/configTypes.js';

const cli = { kind: 'cli' as const, label: 'x.json' };
const vars = { workspaceFolder: '/ws', env: { HOME: '/home/u', TOKEN: 't0k' } };

async function tempWs(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-mcpcfg-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  return dir;
}

test('the Claude Code shape: stdio with args/env/cwd, http and sse; variables expanded', async () => {
  const doc = {
    mcpServers: {
      local: { command: 'node', args: ['${workspaceFolder}/srv.js', '${HOME}/x'], env: { KEY: '${TOKEN}', N: 3 }, cwd: '${workspaceFolder}' },
      remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      old: { type: 'sse', url: 'http://localhost:9/sse' },
      dflt: { command: 'x', args: ['${MISSING:-fallback}'] },
    },
  };
  const r = await parseMcpDocument(doc, cli, vars);
  assert.deepEqual(r.problems, []);
  const by = new Map(r.servers.map((s) => [s.name, s.transport]));
  assert.deepEqual(by.get('local'), { type: 'stdio', command: 'node', args: ['/ws/srv.js', '/home/u/x'], env: { KEY: 't0k', N: '3' }, cwd: '/ws' });
  assert.deepEqual(by.get('remote'), { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t0k' } });
  assert.equal(by.get('old')?.type, 'sse');
  assert.deepEqual(by.get('dflt'), { type: 'stdio', command: 'x', args: ['fallback'], env: {} });
  assert.ok(
    r.servers.every((s) => !s.needsApproval),
    'a file the user named on the command line needs no approval',
  );
});

test('the VS Code shape: servers + inputs, ${input:…} asked once, ${env:…}, comments and trailing commas', async () => {
  const text = `{
    // VS Code writes comments
    "inputs": [{ "type": "promptString", "id": "api-key", "description": "Your API key", "password": true }],
    "servers": {
      "gh": { "type": "http", "url": "https://api.example/mcp", "headers": { "X-Key": "\${input:api-key}" } },
      "fs": { "type": "stdio", "command": "npx", "args": ["-y", "fs", "\${env:HOME}", "\${input:api-key}"], },
    },
  }`;
  const asked: string[] = [];
  const r = await parseMcpDocument(
    text,
    { kind: 'vscode', label: '.vscode/mcp.json' },
    { ...vars, input: async (s) => (asked.push(`${s.id}:${s.description}:${s.password}`), 'secret') },
  );
  assert.deepEqual(r.problems, []);
  assert.deepEqual(asked, ['api-key:Your API key:true']);
  assert.ok(
    r.servers.every((s) => s.needsApproval),
    'workspace files need approval',
  );
  const fs = r.servers.find((s) => s.name === 'fs')?.transport;
  assert.deepEqual(fs?.type === 'stdio' ? fs.args : [], ['-y', 'fs', '/home/u', 'secret']);
});

test('bad inputs: each is one line naming the file and the server; the good server still loads', async () => {
  const doc = {
    mcpServers: {
      good: { command: 'node' },
      ftp: { type: 'ftp', url: 'ftp://x' },
      nocmd: { type: 'stdio' },
      nothing: {},
      nourl: { type: 'http' },
      badurl: { type: 'http', url: 'file:///etc/passwd' },
      argsnotarray: { command: 'x', args: 'a b' },
      noenv: { command: 'x', env: { K: '${NOT_SET_ANYWHERE}' } },
      noinput: { command: 'x', args: ['${input:token}'] },
    },
  };
  const r = await parseMcpDocument(doc, cli, vars);
  assert.deepEqual(
    r.servers.map((s) => s.name),
    ['good'],
  );
  const lines = r.problems.map(problemLine);
  const expect: Record<string, RegExp> = {
    ftp: /unknown "type" "ftp"/,
    nocmd: /stdio server without "command"/,
    nothing: /neither "command".*nor "url"/,
    nourl: /http server without "url"/,
    badurl: /must start with http/,
    argsnotarray: /"args"/,
    noenv: /environment variable NOT_SET_ANYWHERE/,
    noinput: /input "token"/,
  };
  for (const [name, re] of Object.entries(expect)) {
    const line = lines.find((l) => l.includes(`server "${name}"`));
    assert.ok(line !== undefined, `a line for ${name}: ${lines.join('\n')}`);
    assert.match(line, re);
    assert.ok(line.startsWith('x.json: '), line);
    assert.ok(!line.includes('\n'), 'one line');
  }
});

test('malformed documents: not JSON, wrong shape', async () => {
  assert.match(problemLine((await parseMcpDocument('{ "mcpServers": ', cli, vars)).problems[0] ?? { source: '', message: '' }), /^x\.json: not valid JSON/);
  assert.match(problemLine((await parseMcpDocument('[1]', cli, vars)).problems[0] ?? { source: '', message: '' }), /expected a JSON object/);
  assert.match(problemLine((await parseMcpDocument('{"servers": []}', cli, vars)).problems[0] ?? { source: '', message: '' }), /must be an object/);
  assert.match(problemLine((await parseMcpDocument('{"other": 1}', cli, vars)).problems[0] ?? { source: '', message: '' }), /no "mcpServers" or "servers"/);
});

test('all places together: order cli > setting > .mcp.json > .vscode/mcp.json, duplicates named, disabled honoured, a missing --mcp-config named', async (t) => {
  const ws = await tempWs(t);
  await writeFile(join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { a: { command: 'from-claude' }, b: { command: 'b' }, off: { command: 'o' } } }));
  await mkdir(join(ws, '.vscode'));
  await writeFile(join(ws, '.vscode', 'mcp.json'), JSON.stringify({ servers: { a: { command: 'from-vscode' }, c: { type: 'stdio', command: 'c' } } }));
  const cliFile = join(ws, 'cli.json');
  await writeFile(cliFile, JSON.stringify({ mcpServers: { b: { command: 'from-cli' } } }));
  const r = await loadMcpConfig({
    workspace: ws,
    files: [cliFile, join(ws, 'missing.json')],
    userServers: { off: { disabled: true } },
    vars: { workspaceFolder: ws, env: {} },
  });
  const by = new Map(r.servers.map((s) => [s.name, s]));
  assert.deepEqual([...by.keys()].sort(), ['a', 'b', 'c']);
  const cmd = (n: string): string => {
    const tr = by.get(n)?.transport;
    return tr?.type === 'stdio' ? tr.command : '';
  };
  assert.equal(cmd('a'), 'from-claude');
  assert.equal(cmd('b'), 'from-cli');
  assert.equal(by.get('b')?.needsApproval, false);
  assert.equal(by.get('c')?.needsApproval, true);
  const lines = r.problems.map(problemLine);
  assert.ok(
    lines.some((l) => /missing\.json: file not found/.test(l)),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => /\.mcp\.json: server "b": ignored: .*already defined in .*cli\.json/.test(l)),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => /mcp\.json: server "a": ignored/.test(l)),
    lines.join('\n'),
  );
  assert.ok(!lines.some((l) => l.includes('"off"')), 'a disabled server is quietly off');
});

test('approvals are remembered per workspace and per command; a changed command needs a new approval', async (t) => {
  const dir = await tempWs(t);
  const file = new ApprovalFile(join(dir, 'approvals.json'));
  const s = {
    name: 'x',
    source: { kind: 'claude' as const, label: '.mcp.json' },
    needsApproval: true,
    transport: { type: 'stdio' as const, command: 'node', args: ['a.js'], env: { SECRET: 's3cret' } },
  };
  assert.equal(await file.approved('/ws1', s), false);
  await file.remember('/ws1', s);
  assert.equal(await file.approved('/ws1', s), true);
  assert.equal(await file.approved('/ws2', s), false, 'another workspace');
  assert.equal(await file.approved('/ws1', { ...s, transport: { ...s.transport, args: ['evil.js'] } }), false, 'another command');
  assert.equal(
    serverFingerprint(s),
    serverFingerprint({ ...s, transport: { ...s.transport, env: { SECRET: 'other' } } }),
    'env values (secrets) are not part of it',
  );
  assert.ok(!(await readFile(join(dir, 'approvals.json'), 'utf8')).includes('s3cret'), 'no secret is written');
});
