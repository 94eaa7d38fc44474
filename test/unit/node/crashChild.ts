// Child process for the crash test: appends durable entries forever, printing each id once append() resolved.
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';

async function main(): Promise<void> {
  const path = process.argv[2];
  if (!path) throw new Error('usage: crashChild.ts <session.jsonl>');
  const store = await JsonlSessionStore.open(path, { create: { id: 's_crash', cwd: process.cwd() } });
  if (store.readOnly) throw new Error(`unexpectedly read-only: ${store.readOnlyReason ?? ''}`);
  let parent = store.leafId();
  // Bounded so an orphaned child can never run away; the test kills it long before.
  for (let i = 0; i < 100_000; i++) {
    const id = `d${i}`;
    const timestamp = new Date().toISOString();
    if (i % 2 === 0) {
      await store.append({
        type: 'checkpoint',
        id,
        parentId: parent,
        timestamp,
        checkpointId: `ck_${i}`,
        kind: 'auto',
        note: 'n'.repeat(i % 7 === 0 ? 9_000 : 10),
      });
    } else {
      await store.append({ type: 'turn_end', id, parentId: parent, timestamp, turnId: `turn_${i}`, status: 'completed' });
    }
    process.stdout.write(`${id}\n`);
    parent = id;
  }
  await store.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
