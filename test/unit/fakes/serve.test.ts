// The standalone fake server process: prints its URL, follows a JSON script, is controllable, exits on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';

const repo = resolve(__dirname, '../../..');

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolveLine, reject) => {
    if (!child.stdout) return reject(new Error('no stdout'));
    const rl = createInterface({ input: child.stdout });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    rl.once('line', (line) => {
      rl.close();
      resolveLine(line);
    });
    child.once('exit', (code) => reject(new Error(`serve.ts exited (${String(code)}) before printing: ${stderr}`)));
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

test('serve.ts prints its URL, serves the script and control endpoints, and exits cleanly on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'capsule-fake-'));
  const script = join(dir, 'script.json');
  writeFileSync(
    script,
    JSON.stringify({
      replies: [{ text: 'from the script' }],
      rules: [{ match: { summary: true }, reply: { status: 503 } }],
    }),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fakes/serve.ts', '--port', '0', '--window', '65000', '--script', script, '--model', 'm1'], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const line = await firstLine(child);
    const printed = JSON.parse(line) as { url: string };
    assert.match(printed.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const client = new OpenAI({ baseURL: printed.url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
    const models = await client.models.list();
    assert.deepEqual(
      models.data.map((m) => [m.id, (m as unknown as Record<string, unknown>)['context_length']]),
      [['m1', 65000]],
    );
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'hi' }];
    const r = await client.chat.completions.create({ model: 'm1', messages });
    assert.equal(r.choices[0]?.message.content, 'from the script');
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'run' } }];
    const e = await client.chat.completions.create({ model: 'm1', messages, tools, tool_choice: 'none' }).catch((x: unknown) => x);
    assert.ok(e instanceof OpenAI.APIError && e.status === 503, 'the summary rule from the file applies');

    const base = printed.url.replace(/\/v1$/, '');
    const enq = await fetch(`${base}/_control/enqueue`, { method: 'POST', body: JSON.stringify({ text: 'enqueued remotely' }) });
    assert.equal(enq.status, 200);
    const r2 = await client.chat.completions.create({ model: 'm1', messages });
    assert.equal(r2.choices[0]?.message.content, 'enqueued remotely');
    const recorded = (await (await fetch(`${base}/_control/requests`)).json()) as { requests: { path: string; status: number }[] };
    assert.deepEqual(
      recorded.requests.map((q) => [q.path, q.status]),
      [
        ['/v1/models', 200],
        ['/v1/chat/completions', 200],
        ['/v1/chat/completions', 503],
        ['/v1/chat/completions', 200],
      ],
    );
    const badReply = await fetch(`${base}/_control/enqueue`, { method: 'POST', body: JSON.stringify({ nonsense: 1 }) });
    assert.equal(badReply.status, 400);

    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  }
});
