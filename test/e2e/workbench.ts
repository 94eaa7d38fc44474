// Driving the VS Code workbench in code-server: the Capsule webview, the command palette, tree rows, modal dialogs, the output view.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';

/** The chat view's content: VS Code hosts each webview in an outer iframe with the page in a nested #active-frame. */
export function capsuleWebview(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready[src*="capsule-dev.capsule"]').frameLocator('#active-frame');
}

/** Runs a palette command by its title ("Capsule: Compact Context"), as a user would with F1. */
export async function runCommand(page: Page, title: string): Promise<void> {
  const input = page.locator('.quick-input-widget input.input');
  // F1 only reaches the workbench when focus is not inside a webview iframe. The editor area may itself be a webview
  // (a markdown preview), so focus goes first to the editor area, then to an empty stretch of the activity bar.
  const targets = [
    { part: '.part.editor', position: { x: 30, y: 30 } },
    { part: '.part.activitybar', position: { x: 20, y: 600 } },
  ];
  for (const [i, target] of targets.entries()) {
    await page.locator(target.part).click({ position: target.position });
    await page.keyboard.press('F1');
    const shown = await input
      .waitFor({ state: 'visible', timeout: i === targets.length - 1 ? 15_000 : 5_000 })
      .then(() => true)
      .catch(() => false);
    if (shown) break;
  }
  await input.waitFor({ state: 'visible', timeout: 1_000 });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
  await page
    .locator('.quick-input-widget')
    .waitFor({ state: 'hidden', timeout: 15_000 })
    .catch(() => undefined);
}

/** Picks an entry in an open quick pick by its label. */
export async function pickQuickItem(page: Page, label: string | RegExp): Promise<void> {
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
}

/** The "Checkpoints & Capsules" view pane. */
export function checkpointsPane(page: Page): Locator {
  return page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Checkpoints/i }) }).first();
}

/** Tree rows of the checkpoints view whose text matches. */
export function treeRows(page: Page, text: string | RegExp): Locator {
  return checkpointsPane(page).locator('.monaco-list-row', { hasText: text });
}

/** Opens a tree row's context menu and chooses an action by its title. */
export async function contextMenuAction(page: Page, row: Locator, action: string): Promise<void> {
  await row.click({ button: 'right' });
  const menu = page.locator('.context-view .monaco-menu');
  const item = menu.locator('.action-item', { hasText: action }).first();
  await item.waitFor({ timeout: 15_000 });
  // A menu ignores a click that lands while it is still opening; hovering highlights the entry, Enter then runs it.
  await item.hover();
  await item.click();
  const closed = await menu.waitFor({ state: 'hidden', timeout: 3_000 }).then(
    () => true,
    () => false,
  );
  if (!closed) {
    await item.hover();
    await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'hidden', timeout: 10_000 });
  }
}

/** Presses a button of VS Code's modal dialog (showWarningMessage with modal: true). */
export async function answerModal(page: Page, buttonText: string): Promise<string> {
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  const message = (await dialog.locator('.dialog-message-text').textContent()) ?? '';
  await dialog.locator('.dialog-buttons a.monaco-button, .dialog-buttons .monaco-button', { hasText: buttonText }).first().click();
  await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
  return message;
}

/** Shows only the output lines containing `text` (the output view's filter box). */
export async function filterOutput(page: Page, text: string): Promise<void> {
  const filter = page.locator('.part.panel').getByPlaceholder('Filter').first();
  await filter.waitFor({ timeout: 15_000 });
  await filter.fill(text);
}

/**
 * The text of the lines the output view renders, as one string: word-wrapped screen lines are joined with a space,
 * so patterns should allow `\s+` between words.
 */
export async function outputText(page: Page): Promise<string> {
  const texts = await page.locator('.part.panel .monaco-editor .view-lines .view-line').allTextContents();
  return texts.join(' ').replace(/\u00a0/g, ' ');
}

/** Drags the sash between the side bar and the editor so the chat has room (screenshots stay readable). */
export async function widenSideBar(page: Page, by: number): Promise<void> {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box) return;
  const x = box.x + box.width;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + by / 2, y, { steps: 5 });
  await page.mouse.move(x + by, y, { steps: 5 });
  await page.mouse.up();
}

/** Files under `dir` (recursively) whose bytes contain `needle`. */
export function filesContaining(dir: string, needle: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && readFileSync(p).includes(needle)) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** Loads the workbench and opens the Capsule view from the activity bar. */
export async function openWorkbenchWithCapsule(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  const item = page.locator('.activitybar [aria-label^="Capsule"]').first();
  await item.waitFor({ timeout: 60_000 });
  await item.click();
}
