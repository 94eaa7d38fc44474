// The chat view's HTML shell with its strict Content Security Policy; pure so a unit test can check the policy.
import { randomBytes } from 'node:crypto';

export interface WebviewHtmlInput {
  /** `webview.cspSource`. */
  readonly cspSource: string;
  readonly scriptUri: string;
  readonly styleUri: string;
  readonly nonce: string;
}

export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * Scripts only by nonce, styles and fonts (webview.css imports codicon.css, which loads codicon.ttf) only from media/.
 * No inline styles: the webview sets geometry through the CSSOM, which the policy allows.
 */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function webviewHtml(i: WebviewHtmlInput): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(i.cspSource, i.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(i.styleUri)}">
<title>Capsule</title>
</head>
<body>
<main id="root"></main>
<script nonce="${attr(i.nonce)}" src="${attr(i.scriptUri)}"></script>
</body>
</html>`;
}
