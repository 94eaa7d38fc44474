// Writes a Claude Code session JSONL of a given size for the import benchmark: user turns, streamed assistant messages (one line per block), tool results (some large), bookkeeping lines.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

const SESSION = '5f0c2d7e-1b7a-4c0e-9d51-3a9e2f6b8c10';

/** A tiny deterministic generator, so the same size gives the same bytes on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = 'the parser fails on week dates so we read the module then patch the function and run the tests again until they pass'.split(' ');

function prose(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(r() * WORDS.length)] ?? 'x');
  return out.join(' ');
}

function fileBody(r: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(`${String(i + 1).padStart(6)}\t    const v${i} = parse(${JSON.stringify(prose(r, 6))}); // ${prose(r, 4)}`);
  return out.join('\n');
}

/**
 * Lines shaped like Claude Code 2.x writes them (every line carries the session's metadata; a tool result line also
 * carries `toolUseResult`, a second copy of the output), about `bytes` long. One result in fifty is a 200 KB file read.
 */
export async function writeClaudeCodeSession(path: string, bytes: number): Promise<{ readonly lines: number }> {
  const r = rng(42);
  const out = createWriteStream(path);
  let written = 0;
  let lines = 0;
  let n = 0;
  let parent: string | null = null;
  const uuid = (): string => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const time = (): string => new Date(1_760_000_000_000 + n * 1000).toISOString();
  const put = async (o: Record<string, unknown>): Promise<void> => {
    const id = uuid();
    const line = `${JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/home/dev/proj', sessionId: SESSION, version: '2.0.14', gitBranch: 'main', ...o, uuid: id, timestamp: time() })}\n`;
    parent = id;
    written += Buffer.byteLength(line);
    lines++;
    if (!out.write(line)) await once(out, 'drain');
  };
  await put({ type: 'summary', summary: 'Fix ISO week parsing', leafUuid: 'x' });
  for (let turn = 0; written < bytes; turn++) {
    await put({ type: 'user', message: { role: 'user', content: `Turn ${turn}: ${prose(r, 30)}` } });
    const steps = 2 + Math.floor(r() * 6);
    for (let s = 0; s < steps; s++) {
      const msg = `msg_${turn}_${s}`;
      const assistant = (content: unknown[]): Promise<void> =>
        put({
          type: 'assistant',
          requestId: `req_${msg}`,
          message: {
            id: msg,
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5-20250929',
            content,
            stop_reason: null,
            usage: { input_tokens: 1200 + s, output_tokens: 80, cache_read_input_tokens: 30_000, cache_creation_input_tokens: 0 },
          },
        });
      if (r() < 0.3) await assistant([{ type: 'thinking', thinking: prose(r, 60), signature: 'EqQBCkYIBxgCKkB'.repeat(8) }]);
      await assistant([{ type: 'text', text: prose(r, 40) }]);
      const calls = r() < 0.2 ? 2 : 1;
      const ids: string[] = [];
      for (let c = 0; c < calls; c++) {
        const id = `toolu_${turn}_${s}_${c}`;
        ids.push(id);
        const read = r() < 0.5;
        await assistant([
          read
            ? { type: 'tool_use', id, name: 'Read', input: { file_path: `/home/dev/proj/src/mod${s}.ts` } }
            : { type: 'tool_use', id, name: 'Bash', input: { command: `npm test -- mod${s}`, description: 'Run the tests' } },
        ]);
      }
      for (const id of ids) {
        const big = r() < 0.02;
        const content = big
          ? fileBody(r, 2500)
          : r() < 0.5
            ? fileBody(r, 20 + Math.floor(r() * 150))
            : `PASS src/mod${s}.test.ts\n${prose(r, 50)}\nTests: 12 passed`;
        await put({
          type: 'user',
          message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, is_error: false }] },
          toolUseResult: { stdout: content, stderr: '', interrupted: false, isImage: false },
        });
      }
    }
    await put({
      type: 'assistant',
      requestId: `req_end_${turn}`,
      message: {
        id: `msg_end_${turn}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: prose(r, 25) }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    });
    if (turn % 10 === 9) await put({ type: 'file-history-snapshot', messageId: `m${turn}`, snapshot: { trackedFileBackups: {} } });
  }
  out.end();
  await once(out, 'finish');
  return { lines };
}
