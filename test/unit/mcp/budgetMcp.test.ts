// `capsule budget` works offline and starts no MCP server: it names the servers the session's workspace configures and says their schemas were not measured (in text and --json).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../../src/cli/main.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(argv, (s) => lines.push(s));
  return { code, out: lines.join('\n') };
}

test('capsule budget: "not measured" with the configured servers, "none" without, and never a started server', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-budgetmcp-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const ws = join(dir, 'ws');
  await mkdir(join(ws, '.vscode'), { recursive: true });
  process.env.CAPSULE_LIMITS_FILE = join(dir, 'limits.json');
  const server = await startFakeOpenAI({ window: 32_000 });
  t.after(() => server.close());
  server.enqueue({ text: 'Hello.' });
  const session = join(dir, 'chat.jsonl');
  const chat = await run([
    'chat',
    '--base-url',
    server.url,
    '--model',
    'fake-model',
    '--session',
    session,
    '--workspace',
    ws,
    '--window',
    '32000',
    '--no-mcp',
    'hi',
  ]);
  assert.equal(chat.code, 0, chat.out);

  const none = await run(['budget', session]);
  assert.equal(none.code, 0, none.out);
  assert.match(none.out, /MCP tool schemas: {4}none \(no MCP server configured in the workspace\)/);

  // A server that would leave a mark if it ever ran, and one whose secret input has no value here.
  const mark = join(dir, 'started');
  await writeFile(
    join(ws, '.mcp.json'),
    JSON.stringify({ mcpServers: { tracker: { command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(mark)}, 'x')`] } } }),
  );
  await writeFile(
    join(ws, '.vscode', 'mcp.json'),
    JSON.stringify({
      inputs: [{ type: 'promptString', id: 'pw', description: 'pw', password: true }],
      servers: { db: { command: 'db-mcp', args: ['${input:pw}'] } },
    }),
  );
  const text = await run(['budget', session]);
  assert.equal(text.code, 0, text.out);
  assert.ok(
    text.out.includes(
      `MCP tool schemas:    not measured: 'capsule budget' starts no server (configured: db, tracker); 'capsule mcp list --workspace ${ws}' starts them and counts their schemas`,
    ),
    text.out,
  );
  const json = await run(['budget', session, '--json']);
  assert.deepEqual((JSON.parse(json.out) as { mcp: unknown }).mcp, { measured: false, configured: ['db', 'tracker'] });
  await assert.rejects(
    import('node:fs/promises').then((fs) => fs.stat(mark)),
    'no server was started',
  );
});
