// Helpers for the extension-host tests: the Capsule extension, its manifest's contributions, config events, its log.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';

/** `publisher.name` from package.json. */
export const EXTENSION_ID = 'capsule-dev.capsule';
/** The activity-bar container id from package.json `contributes.viewsContainers`. */
export const VIEW_CONTAINER = 'capsule';

export function capsuleExtension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not loaded in this VS Code (was it started with --extensionDevelopmentPath?)`);
  return ext;
}

function record(v: unknown): Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function array(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

function stringField(v: unknown, key: string): string[] {
  const s = record(v)[key];
  return typeof s === 'string' ? [s] : [];
}

/** Read from the manifest VS Code loaded, so the tests follow package.json instead of repeating it. */
function contributes(ext: vscode.Extension<unknown>): Readonly<Record<string, unknown>> {
  return record(record(ext.packageJSON).contributes);
}

export function contributedCommands(ext: vscode.Extension<unknown>): string[] {
  return array(contributes(ext).commands).flatMap((c) => stringField(c, 'command'));
}

export function contributedViews(ext: vscode.Extension<unknown>): string[] {
  return array(record(contributes(ext).views)[VIEW_CONTAINER]).flatMap((v) => stringField(v, 'id'));
}

/** Resolves on the next configuration change that touches `section`. */
export function nextConfigChange(section: string): Promise<void> {
  return new Promise((resolve) => {
    const sub = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(section)) return;
      sub.dispose();
      resolve();
    });
  });
}

function logFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return logFiles(p);
    return d.name.endsWith('.log') ? [p] : [];
  });
}

/** The launcher gives this VS Code a fresh user-data dir and says where its logs go. */
export function logsDir(): string {
  const dir = process.env.CAPSULE_TEST_LOGS_DIR;
  if (!dir) throw new Error('CAPSULE_TEST_LOGS_DIR is not set: run these tests through `npm run test:vscode`');
  return dir;
}

/** How many times `text` appears across all log files (the Capsule output channel is one of them). */
export function countInLogs(dir: string, text: string): number {
  let n = 0;
  for (const f of logFiles(dir)) n += readFileSync(f, 'utf8').split(text).length - 1;
  return n;
}

/**
 * Log channels reach their file asynchronously, so poll; the runner's hang guard bounds the wait.
 * Returns the last count seen so a failure message can show it.
 */
export async function waitForLogCount(dir: string, text: string, atLeast: number, deadlineMs: number): Promise<number> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const n = countInLogs(dir, text);
    if (n >= atLeast || Date.now() > end) return n;
    await new Promise((r) => setTimeout(r, 200));
  }
}
