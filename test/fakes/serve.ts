// Runs the fake OpenAI server as its own process; prints {"url": ".../v1"} once listening, stops on SIGTERM.
// Usage: node --import tsx test/fakes/serve.ts [--port 0] [--window 65000] [--script path.json]
//          [--api-key KEY] [--model ID] [--strict-models] [--no-control]
// The script file format is described in scriptFile.ts; /_control/* (see control.ts) is on unless --no-control.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startFakeOpenAI } from './openaiServer.js';
import { parseScriptFile, type ScriptFile } from './scriptFile.js';
import type { FakeModel } from './types.js';

function numberArg(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${value}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      window: { type: 'string' },
      script: { type: 'string' },
      'api-key': { type: 'string' },
      model: { type: 'string' },
      'strict-models': { type: 'boolean' },
      'no-control': { type: 'boolean' },
    },
  });
  const file: ScriptFile =
    values.script === undefined ? { replies: [], rules: [] } : parseScriptFile(JSON.parse(readFileSync(values.script, 'utf8')) as unknown);
  const window = numberArg(values.window, 'window') ?? file.window;
  const models: readonly FakeModel[] | undefined = values.model !== undefined ? [{ id: values.model, contextLength: window ?? 65000 }] : file.models;
  const server = await startFakeOpenAI({
    port: numberArg(values.port, 'port') ?? 0,
    window,
    models,
    apiKey: values['api-key'] ?? file.apiKey,
    script: file.replies,
    strictModels: values['strict-models'] === true,
    control: values['no-control'] !== true,
  });
  for (const rule of file.rules) server.onMatch(rule.match, rule.reply, { times: rule.times });
  const fallback = file.fallback;
  if (fallback) server.setFallback(() => fallback);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`fake server: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
