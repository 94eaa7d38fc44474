// Launches Debian's Chromium through playwright-core (never a downloaded browser) and keeps per-step screenshots.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ConsoleMessage, Page } from 'playwright-core';
import { REPO } from './codeServer.js';

export const ARTIFACTS = join(REPO, 'test-artifacts', 'e2e');

export { launchBrowser } from '../support/browser.js';

export interface ConsoleLog {
  readonly errors: string[];
}

/** Records console errors and page errors of the page and all of its frames (webviews are nested iframes). */
export function watchConsole(page: Page): ConsoleLog {
  const errors: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') errors.push(`${m.text()} @ ${m.location().url}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return { errors };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/**
 * Runs one named step of a scenario and keeps a screenshot of it; on failure the error names the step,
 * the FAILED- screenshot and the tail of code-server's output.
 */
export function stepper(page: () => Page, output: () => string): <T>(name: string, fn: () => Promise<T>) => Promise<T> {
  return async (name, fn) => {
    try {
      const r = await fn();
      await screenshot(page(), name);
      return r;
    } catch (e) {
      const file = await screenshot(page(), `FAILED-${name}`).catch(() => 'no screenshot');
      const msg = e instanceof Error ? e.message : String(e);
      throw new Error(`${name}: ${msg}\nscreenshot: ${file}\ncode-server output tail:\n${output().slice(-2000)}`);
    }
  };
}
