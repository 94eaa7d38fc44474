// The chat view's HTML shell: a strict CSP with a nonce, and nothing loadable from outside the webview's own source.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentSecurityPolicy, newNonce, webviewHtml } from '../../../src/vscode/views/webviewHtml.js';

const CSP_SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';

test('the policy denies by default and allows scripts only by nonce', () => {
  const csp = contentSecurityPolicy(CSP_SOURCE, 'abc');
  const directives = new Map(
    csp.split(';').map((d) => {
      const [name = '', ...values] = d.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );
  assert.deepEqual(directives.get('default-src'), ["'none'"]);
  assert.deepEqual(directives.get('script-src'), ["'nonce-abc'"]);
  assert.deepEqual(directives.get('style-src'), [CSP_SOURCE]);
  assert.deepEqual(directives.get('img-src'), [CSP_SOURCE, 'data:']);
  assert.deepEqual(directives.get('font-src'), [CSP_SOURCE]);
  assert.ok(!csp.includes('unsafe'), 'no unsafe-inline or unsafe-eval');
});

test('the page loads exactly one script, carrying the nonce, and one stylesheet', () => {
  const nonce = newNonce();
  const html = webviewHtml({ cspSource: CSP_SOURCE, scriptUri: `${CSP_SOURCE}/media/webview.js`, styleUri: `${CSP_SOURCE}/media/webview.css`, nonce });
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  assert.equal(scripts.length, 1);
  assert.ok(scripts[0]?.includes(`nonce="${nonce}"`));
  assert.ok(scripts[0]?.includes('media/webview.js'));
  assert.equal([...html.matchAll(/<link\b[^>]*rel="stylesheet"/g)].length, 1);
  assert.ok(!/\sstyle=/.test(html), 'inline style attributes would be blocked by the CSP');
  assert.ok(html.includes(`script-src 'nonce-${nonce}'`));
});

test('nonces are fresh and unguessable-length', () => {
  const a = newNonce();
  const b = newNonce();
  assert.notEqual(a, b);
  assert.ok(a.length >= 22);
  assert.match(a, /^[A-Za-z0-9_-]+$/);
});

test('attribute values are escaped', () => {
  const html = webviewHtml({ cspSource: CSP_SOURCE, scriptUri: 'x"><script>alert(1)</script>', styleUri: 's', nonce: 'n' });
  assert.ok(!html.includes('<script>alert(1)'));
});
