// Test helper: a workspace with instruction files and skills, a session that reads them (no user-level folder), and the texts of recorded requests.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ChatBody, FakeOpenAIServer, RecordedRequest } from '../../fakes/openaiServer.js';
import { makeWorkspace, openSession, type Opened } from '../agent/agentHelpers.js';
import type { InstructionOptions } from '../../../src/node/instructions/sessionInstructions.js';

export async function put(root: string, rel: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, rel)), { recursive: true });
  await writeFile(join(root, rel), text);
}

/** A workspace of `files` sample files plus the given extra files. */
export async function workspaceWith(dir: string, extra: Readonly<Record<string, string>>, files = 4, lines = 30): Promise<string> {
  const ws = await makeWorkspace(dir, files, lines);
  for (const [rel, text] of Object.entries(extra)) await put(ws, rel, text);
  return ws;
}

export async function openWithInstructions(
  server: FakeOpenAIServer,
  dir: string,
  ws: string,
  over: Parameters<typeof openSession>[2] & { instr?: InstructionOptions } = {},
): Promise<Opened> {
  const { instr, ...rest } = over;
  return openSession(server, dir, {
    workspace: { roots: [ws], approve: async () => true, trusted: () => true },
    instructionFiles: { userDir: null, ...instr },
    ...rest,
  });
}

export function bodyOf(r: RecordedRequest): ChatBody {
  return r.body as ChatBody;
}

export function systemText(r: RecordedRequest): string {
  const first = bodyOf(r).messages[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : '';
}

export function messageTexts(r: RecordedRequest): string[] {
  return bodyOf(r).messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')));
}
