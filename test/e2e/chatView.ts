// The Capsule chat webview as a user sees it: composer, meter, answers, barrier strip, compaction cards, capsule viewer.
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { capsuleWebview } from './workbench.js';

/** Polls `cond` until it holds; the error names what was awaited. */
export async function waitUntil(what: string, cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export class ChatView {
  readonly frame: FrameLocator;

  constructor(page: Page) {
    this.frame = capsuleWebview(page);
  }

  get composer(): Locator {
    return this.frame.locator('textarea[aria-label="Message"]');
  }

  get barrier(): Locator {
    return this.frame.locator('.barrier');
  }

  /** Every compaction card on the active branch, oldest first. */
  get cards(): Locator {
    return this.frame.locator('.item-compaction .card');
  }

  get dialog(): Locator {
    return this.frame.getByRole('dialog');
  }

  async ready(timeoutMs: number): Promise<void> {
    await this.composer.waitFor({ timeout: timeoutMs });
    await this.frame.locator('[role="meter"]').waitFor({ timeout: timeoutMs });
  }

  /** The meter's effective tokens (aria-valuenow). */
  async meter(): Promise<number> {
    return Number(await this.frame.locator('[role="meter"]').getAttribute('aria-valuenow'));
  }

  /** The headline figure, e.g. "10,258 / 17,000". */
  async figure(): Promise<string> {
    return ((await this.frame.locator('.budget-panel .figure').textContent()) ?? '').trim();
  }

  async send(text: string): Promise<void> {
    await this.composer.click();
    await this.composer.fill(text);
    await this.composer.press('Enter');
  }

  /** Nothing runs: the Stop button is gone. */
  async idle(timeoutMs = 60_000): Promise<void> {
    await this.frame.locator('button.stop').waitFor({ state: 'hidden', timeout: timeoutMs });
  }

  /** A finished (no longer streaming) assistant answer containing `text`. */
  answer(text: string): Locator {
    return this.frame.locator('.item-assistant .markdown:not(.streaming)', { hasText: text });
  }

  /** An assistant answer still streaming, containing `text`. */
  streaming(text: string): Locator {
    return this.frame.locator('.item-assistant .markdown.streaming', { hasText: text });
  }

  async waitForMeterAbove(value: number, timeoutMs = 30_000): Promise<number> {
    await waitUntil(`the meter to rise above ${value}`, async () => (await this.meter()) > value, timeoutMs);
    return this.meter();
  }

  async waitForMeterBelow(value: number, timeoutMs = 30_000): Promise<number> {
    await waitUntil(`the meter to drop below ${value}`, async () => (await this.meter()) < value, timeoutMs);
    return this.meter();
  }
}
