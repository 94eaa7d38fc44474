// Debian's Chromium through playwright-core (never a downloaded browser), for the webview and end-to-end tiers and the benchmarks.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

function chromiumPath(): string {
  const p = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(p)) throw new Error(`Chromium not found at ${p}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return p;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
