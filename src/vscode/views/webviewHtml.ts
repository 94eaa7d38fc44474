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
  return ["default-src 'none'", `script-src 'nonce-${nonce}'`, `style-src ${cspSource}`, `img-src ${cspSource} data:`, `font-src ${cspSource}`].join('; ');
}

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** One page of the view: its CSP, the stylesheet, and `body` (already escaped). */
function page(csp: string, styleUri: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(styleUri)}">
<title>Capsule</title>
</head>
<body>
${body}
</body>
</html>`;
}

export function webviewHtml(i: WebviewHtmlInput): string {
  return page(
    contentSecurityPolicy(i.cspSource, i.nonce),
    i.styleUri,
    `<main id="root"></main>
<script nonce="${attr(i.nonce)}" src="${attr(i.scriptUri)}"></script>`,
  );
}

/** The command the Restricted Mode page may run (its only link), and nothing else. */
export const MANAGE_TRUST_COMMAND = 'workbench.trust.manage';

/**
 * The view in an untrusted workspace (Restricted Mode): no script at all, only media/ styles, one command link.
 * It says what still works and what waits for trust; granting trust swaps in the chat without a reload.
 */
export function restrictedHtml(i: Pick<WebviewHtmlInput, 'cspSource' | 'styleUri'>): string {
  const csp = ["default-src 'none'", `style-src ${i.cspSource}`, `font-src ${i.cspSource}`].join('; ');
  return page(
    csp,
    i.styleUri,
    `<main class="restricted" aria-labelledby="restricted-title">
<h2 id="restricted-title">Capsule is in Restricted Mode</h2>
<p>This workspace is not trusted, so the agent does not run here: it would read and change the workspace's files and run commands in it.</p>
<h3>What works</h3>
<ul>
<li>The <strong>Checkpoints &amp; Capsules</strong> view lists this workspace's saved chats, their checkpoints and capsules.</li>
<li><strong>Export Capsule…</strong> saves a capsule as a portable file; the status bar shows the open chat's context figures.</li>
</ul>
<h3>What waits for trust</h3>
<ul>
<li>Sending messages to the model, and its tools: reading and editing files, running commands.</li>
<li>Compaction, creating and loading portable capsules, Project Memory.</li>
<li>This workspace's settings for the endpoint, the model and always-allowed commands (ignored until you trust it).</li>
</ul>
<p><a class="trust-button" href="command:${MANAGE_TRUST_COMMAND}" role="button">Manage Workspace Trust</a></p>
<p class="restricted-note">Once you trust this workspace, this view becomes the chat; no reload needed.</p>
</main>`,
  );
}
