// Child process of subagentsCrash.test.ts: opens a session against the given fake server and runs one turn until it is killed.
import { AgentSession } from '../../../src/node/agentSession.js';

async function main(url: string, sessionPath: string, dir: string): Promise<void> {
  const session = await AgentSession.open({
    sessionPath,
    create: { cwd: dir },
    model: { chat: { baseURL: url, apiKey: '', model: 'fake-model' }, override: { contextWindow: 20_000, maxOutputTokens: 2_000 } },
    env: {},
    workspace: { roots: [dir], approve: async () => true, trusted: () => true },
  });
  await session.turn({ userText: 'delegate two reads', signal: new AbortController().signal });
  await session.close();
}

const [url, sessionPath, dir] = process.argv.slice(2);
if (url === undefined || sessionPath === undefined || dir === undefined) throw new Error('usage: subagentCrashChild.ts <url> <session> <dir>');
void main(url, sessionPath, dir);
