// Shared helpers for the session-store tests: temp folders and small valid entries of every kind.
import { readFile } from 'node:fs/promises';
import { tempDir as sharedTempDir } from '../../support/tempDir.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';

/** A temp dir removed after the test (the one helper in test/support, with this area's prefix). */
export function tempDir(t: Parameters<typeof sharedTempDir>[0], prefix = 'capsule-store-'): Promise<string> {
  return sharedTempDir(t, prefix);
}

const TS = '2025-01-01T00:00:00.000Z';

export function user(id: string, parentId: string | null, content = `ask ${id}`): Entry {
  return { type: 'user', id, parentId, timestamp: TS, content };
}

export function assistant(id: string, parentId: string | null, toolCallId?: string): Entry {
  return {
    type: 'assistant',
    id,
    parentId,
    timestamp: TS,
    content: `answer ${id}`,
    toolCalls: toolCallId ? [{ id: toolCallId, name: 'read_file', arguments: '{"path":"src/a.ts"}' }] : [],
  };
}

export function toolResult(id: string, parentId: string, toolCallId: string, content = 'line 1\nline 2'): Entry {
  return { type: 'tool_result', id, parentId, timestamp: TS, toolCallId, toolName: 'read_file', content, isError: false };
}

export function checkpoint(id: string, parentId: string | null): Entry {
  return { type: 'checkpoint', id, parentId, timestamp: TS, checkpointId: `ck_${id}`, kind: 'milestone', note: 'tests pass' };
}

export function capsule(id: string, parentId: string | null, firstKeptEntryId: string | null): Entry {
  return {
    type: 'capsule',
    id,
    parentId,
    timestamp: TS,
    summary: '## Goal\nShip it',
    firstKeptEntryId,
    pinnedEntryIds: [],
    tokensBefore: 50_000,
    tokensAfter: 9_000,
    trigger: 'auto_threshold',
    level: 0,
    quality: 'full',
    truncateResults: false,
    checkpointId: `ck_${id}`,
    details: {},
  };
}

export function leafMove(id: string, parentId: string | null, targetId: string | null): Entry {
  return { type: 'leaf', id, parentId, timestamp: TS, targetId, reason: 'rewind' };
}

export function headerLine(version = 1, id = 's_test'): string {
  return JSON.stringify({ type: 'session', version, id, createdAt: TS, cwd: '/w' });
}

export function line(e: Entry): string {
  return JSON.stringify(e);
}

/** Every line of a file, asserting nothing; the last element is '' when the file ends in '\n'. */
export async function fileLines(path: string): Promise<string[]> {
  return (await readFile(path, 'utf8')).split('\n');
}
