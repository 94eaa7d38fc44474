// The /v1/models catalog: limits read from the fake server's model list, odd shapes tolerated, failures as one clear line.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIError } from 'openai';
import { catalogOf, fetchModelCatalog } from '../../../src/node/providers/modelCatalog.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';

let fake: FakeOpenAIServer;
/** A bare server for bodies the fake never sends: path → [content-type, body]. */
let odd: Server;
let oddURL: string;
const ODD: Record<string, readonly [string, string]> = {
  '/null/models': ['application/json', 'null'],
  '/bare/models': ['application/json', JSON.stringify([{ id: 'local-a', max_model_len: 4096 }, { nope: true }, 'x'])],
  '/html/models': ['text/html', '<html><body>Welcome to nginx!</body></html>'],
};

before(async () => {
  fake = await startFakeOpenAI({
    apiKey: 'sk-cat',
    models: [
      { id: 'small-model', contextLength: 8192 },
      { id: 'big-model', contextLength: 131072 },
    ],
  });
  odd = createServer((req, res) => {
    const entry = ODD[req.url ?? ''];
    if (!entry) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': entry[0] }).end(entry[1]);
  });
  await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
  oddURL = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
});
after(async () => {
  await fake.close();
  await new Promise<void>((resolve) => odd.close(() => resolve()));
});

test("the catalog reads each model's context_length from /v1/models", async () => {
  const models = await fetchModelCatalog(fake.url, 'sk-cat');
  assert.deepEqual(models, [
    { id: 'small-model', contextWindow: 8192 },
    { id: 'big-model', contextWindow: 131072 },
  ]);
  const listed = fake.requests[fake.requests.length - 1];
  assert.equal(listed?.path, '/v1/models');
  assert.equal(listed?.headers['authorization'], 'Bearer sk-cat');
});

test('a window changed on the server shows up on the next read', async () => {
  fake.setWindow(4096, 'big-model');
  const models = await fetchModelCatalog(fake.url, 'sk-cat');
  assert.equal(models.find((m) => m.id === 'big-model')?.contextWindow, 4096);
  fake.reset();
});

test('odd JSON shapes never throw: null gives nothing, a bare array is read, entries without an id are skipped', async () => {
  assert.deepEqual(await fetchModelCatalog(`${oddURL}/null`, ''), []);
  assert.deepEqual(await fetchModelCatalog(`${oddURL}/bare`, ''), [{ id: 'local-a', contextWindow: 4096 }]);
  assert.deepEqual(catalogOf({ data: 'not a list' }), []);
  assert.deepEqual(catalogOf({ models: [{ id: 'm', context_length: '32768', max_output_tokens: 'lots' }] }), [{ id: 'm', contextWindow: 32768 }]);
  assert.deepEqual(catalogOf({ data: [{ id: 'o', top_provider: { context_length: 200000, max_completion_tokens: 8192 } }] }), [
    { id: 'o', contextWindow: 200000, maxOutputTokens: 8192 },
  ]);
  assert.deepEqual(catalogOf(42), []);
});

function oneLineError(pattern: RegExp) {
  return (e: unknown): boolean => {
    assert.ok(e instanceof Error);
    assert.equal(e.message.includes('\n'), false);
    assert.match(e.message, pattern);
    return true;
  };
}

test('a wrong key, a web page and a closed port each fail with one clear line', async () => {
  await assert.rejects(fetchModelCatalog(fake.url, 'sk-wrong'), (e: unknown) => {
    oneLineError(/^Could not list models at http:\/\/127\.0\.0\.1:\d+\/v1: 401 Incorrect API key/)(e);
    assert.ok(e instanceof Error && e.cause instanceof APIError && e.cause.status === 401);
    return true;
  });
  await assert.rejects(fetchModelCatalog(`${oddURL}/html`, ''), oneLineError(/the answer was not JSON \(text\/html\)/));
  // A port that was just free (our own closed server) refuses the connection.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await assert.rejects(fetchModelCatalog(`http://127.0.0.1:${port}/v1`, 'k'), oneLineError(/Could not list models at .*Connection error.*ECONNREFUSED/));
});

test('a cancelled catalog read rejects with an AbortError', async () => {
  await assert.rejects(fetchModelCatalog(fake.url, 'sk-cat', AbortSignal.abort()), { name: 'AbortError' });
});
