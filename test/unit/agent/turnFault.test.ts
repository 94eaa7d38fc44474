// What a failed request tells the user: real client errors (fake server, a closed port, an unresolvable host) → category, host, status, message as data, hint, setting.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAIChatModel } from '../../../src/node/providers/openaiModel.js';
import { classifyError } from '../../../src/engine/provider/faults.js';
import { faultAdvice, faultLine, nothingListeningHint, providerMessage, turnFaultOf, type TurnFault } from '../../../src/engine/provider/turnFault.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { collect, request } from '../node/openaiHelpers.js';

const KEY = 'sk-test-1234567890abcdef';
let server: FakeOpenAIServer;
let host: string;

before(async () => {
  server = await startFakeOpenAI({ apiKey: KEY, strictModels: true, models: [{ id: 'fake-model', contextLength: 65_000 }] });
  host = new URL(server.url).host;
});
after(() => server.close());

/** The fault of one real request through the real client, as the agent records it. */
async function faultOf(opts: { baseURL?: string; apiKey?: string; model?: string } = {}): Promise<TurnFault> {
  const model = new OpenAIChatModel({ baseURL: opts.baseURL ?? server.url, apiKey: opts.apiKey ?? KEY, model: opts.model ?? 'fake-model' });
  try {
    await collect(model.chat(request(), new AbortController().signal));
  } catch (e) {
    return turnFaultOf(classifyError(e), model.endpoint);
  }
  return assert.fail('the request should have failed');
}

test('401: the key was refused; the card names the host, never the key, and opens the API key setting', async () => {
  const f = await faultOf({ apiKey: 'sk-wrong-key-abcdefghijklmnop' });
  assert.equal(f.category, 'auth');
  assert.equal(f.status, 401);
  assert.equal(f.endpoint, host);
  assert.match(f.message, /^Incorrect API key provided/);
  assert.ok(!f.message.includes('wrong-key-abcdefghijklmnop') && !f.message.includes('mnop'), `no part of the key: ${f.message}`);
  assert.equal(faultAdvice(f).settings, 'apiKey');
  assert.equal(faultLine(f).split(' · ')[0], host);
});

test('403, 429 and 500 come with their status and the provider’s words', async () => {
  const cases: readonly [number, TurnFault['category'], string | undefined][] = [
    [403, 'forbidden', 'apiKey'],
    [429, 'rate_limit', undefined],
    [500, 'server', undefined],
  ];
  for (const [status, category, settings] of cases) {
    server.enqueue({ status, body: { error: { message: `scripted ${status} from upstream`, type: 'x', code: null } } });
    const f = await faultOf();
    assert.equal(f.category, category, `HTTP ${status}`);
    assert.equal(f.status, status);
    assert.equal(f.message, `scripted ${status} from upstream`, 'the client’s status prefix is not repeated');
    assert.equal(faultAdvice(f).settings, settings);
    assert.equal(faultLine(f), `${host} · HTTP ${status} · scripted ${status} from upstream`);
  }
});

test('404 of an unknown model opens the model setting; a 404 page at a wrong path opens the base URL', async () => {
  const model = await faultOf({ model: 'no-such-model' });
  assert.equal(model.category, 'model_not_found');
  assert.equal(faultAdvice(model).settings, 'model');
  assert.match(model.message, /no-such-model/);

  const wrongPath = await faultOf({ baseURL: server.url.replace(/\/v1$/, '/api') });
  assert.equal(wrongPath.category, 'not_found');
  assert.equal(faultAdvice(wrongPath).settings, 'baseUrl');
  assert.match(faultAdvice(wrongPath).hint, /\/v1/);
});

test('an HTML error page is reduced to its title, as text', async () => {
  const page =
    '<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{}</style></head><body><h1>Bad Gateway</h1><script>alert(1)</script></body></html>';
  server.enqueue({ status: 502, body: page }, { status: 502, body: page }, { status: 502, body: page }, { status: 502, body: page });
  const f = await faultOf();
  assert.equal(f.category, 'server');
  assert.equal(f.message, 'HTML page: 502 Bad Gateway');
  assert.equal(providerMessage('<html><body><h1>Not &amp; Found</h1></body></html>', 404), 'HTML page: Not & Found');
  const html404 = turnFaultOf({ kind: 'fatal', status: 404, message: '404 <html><head><title>404 Not Found</title></head><body>model</body></html>' }, host);
  assert.equal(html404.category, 'not_found', 'a web page is a wrong URL, even when it mentions a model');
});

test('ECONNREFUSED: nothing listens at the host; the base URL setting is offered', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const f = await faultOf({ baseURL: `http://127.0.0.1:${port}/v1` });
  assert.equal(f.category, 'connection_refused');
  assert.equal(f.endpoint, `127.0.0.1:${port}`);
  assert.equal(f.status, undefined);
  assert.match(f.message, /ECONNREFUSED/);
  assert.deepEqual(faultAdvice(f), { hint: nothingListeningHint(`127.0.0.1:${port}`), settings: 'baseUrl' });
  assert.match(faultLine(f), new RegExp(`^127\\.0\\.0\\.1:${port} · ECONNREFUSED · `));
});

test('ENOTFOUND: the host name does not resolve', async () => {
  const f = await faultOf({ baseURL: 'http://capsule-no-such-host.invalid/v1?api-version=2024-01-01' });
  assert.equal(f.category, 'dns');
  assert.equal(f.endpoint, 'capsule-no-such-host.invalid', 'host only: no path, no query');
  assert.equal(faultAdvice(f).settings, 'baseUrl');
});

test('timeouts: a stalled request and an ETIMEDOUT both read as "no answer in time"', () => {
  assert.equal(turnFaultOf({ kind: 'transient', message: 'no response from the model for 300 s' }, host).category, 'timeout');
  assert.equal(turnFaultOf({ kind: 'transient', message: 'Connection error.', code: 'ETIMEDOUT' }, host).category, 'timeout');
  assert.equal(turnFaultOf({ kind: 'transient', status: 408, message: '408 Request Timeout' }, host).category, 'timeout');
});

test('keys, bearer tokens and URL queries never reach the message', () => {
  const m = providerMessage('bad key sk-proj-ABCDEFGHIJKLMNOP sent as Bearer abcdefghijkl to https://x.example/v1/chat?key=SECRET123&x=1');
  assert.ok(!m.includes('ABCDEFGHIJKLMNOP') && !m.includes('abcdefghijkl') && !m.includes('SECRET123'), m);
  assert.match(m, /https:\/\/x\.example\/v1\/chat\?…/);
});
