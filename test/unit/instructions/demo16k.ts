// Prints what the fake server saw in one scripted 16k session with an AGENTS.md, a skill and an image, before and after each compaction (run with tsx; not a test).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSummaryRequest, startFakeOpenAI, type ChatBody } from '../../fakes/openaiServer.js';
import { agentResponder, SMALL_SETTINGS } from '../agent/agentHelpers.js';
import { readImageFile } from '../../../src/node/images/imageFile.js';
import { openWithInstructions, workspaceWith } from './instructionHelpers.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';

function png(w: number, h: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'ascii');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  return b;
}

async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-demo-'));
  const server = await startFakeOpenAI({ window: 16_000 });
  server.setFallback(
    agentResponder((text) => {
      if (text.startsWith('Use the skill')) return [{ name: 'skill', arguments: { name: 'release-notes' } }];
      const m = /^Read (f\d+)/.exec(text);
      return m === null ? [] : [{ name: 'read_file', arguments: { path: `src/${m[1] ?? ''}.ts` } }];
    }),
  );
  const ws = await workspaceWith(
    dir,
    {
      'AGENTS.md': 'CONSTRAINT-7F3A: indent with exactly three spaces.\n',
      '.claude/skills/release-notes/SKILL.md':
        '---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nSKILL-BODY-91: group changes by feature.\n',
    },
    4,
    60,
  );
  await writeFile(join(ws, 'shot.png'), png(1024, 768));
  const { session } = await openWithInstructions(server, dir, ws, {
    model: 'gpt-4o',
    window: 16_000,
    maxOutput: 1000,
    settings: { ...SMALL_SETTINGS, keepRecentTokens: 600 },
  });
  const signal = new AbortController().signal;
  const img = await readImageFile(join(ws, 'shot.png'));
  if (!img.ok) throw new Error(img.error);
  await session.turn({ userText: 'Read f0 please.', signal });
  await session.turn({ userText: 'Use the skill for release notes.', signal });
  await session.turn({ userText: 'What is wrong in this screenshot?', images: [img.image], signal });
  await writeFile(join(ws, 'AGENTS.md'), 'CONSTRAINT-7F3A: indent with exactly three spaces.\nEDIT-2: answer in English.\n');
  await session.turn({ userText: 'Read f1 please.', signal });
  await session.compact();
  await session.turn({ userText: 'Read f2 please.', signal });
  await session.turn({ userText: 'Read f3 please.', signal });
  await session.compact();
  await session.turn({ userText: 'Read f0 again.', signal });
  await session.close();
  for (const [i, r] of server.chatRequests.entries()) {
    const body = r.body as ChatBody;
    const sys = String(body.messages[0]?.content ?? '');
    const rest = body.messages.slice(1).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')));
    const all = rest.join('\n');
    const facts = [
      isSummaryRequest(body) ? 'SUMMARY' : 'agent',
      `msgs=${body.messages.length}`,
      `tokens=${r.promptTokens}`,
      `sys:AGENTS=${sys.includes('## AGENTS.md\nCONSTRAINT-7F3A: indent with exactly three spaces.')}`,
      `sys:EDIT-2=${sys.includes('EDIT-2')}`,
      `msg:update=${rest.some((m) => m.startsWith('# Instruction update'))}`,
      `sys:skillIndex=${sys.includes('- release-notes: Write release notes')}`,
      `skillBody:${sys.includes('SKILL-BODY-91') ? 'system' : all.includes('SKILL-BODY-91') ? 'messages' : 'absent'}`,
      `image:${all.includes('"image_url"') ? 'part' : all.includes('left the model input at a compaction') ? 'placeholder' : 'none'}`,
      `capsule=${rest.some((m) => m.includes('## Ledger') || m.includes('**Active skills:**'))}`,
      `ledgerSkills=${/\*\*Active skills:\*\* ([^\n]*)/.exec(all)?.[1] ?? '-'}`,
    ];
    console.log(`#${String(i + 1).padStart(2)} ${facts.join(' ')}`);
  }
  await server.close();
}

void run();
