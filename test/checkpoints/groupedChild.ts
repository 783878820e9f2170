/**
 * A child process for the group-commit crash test: several concurrent "calls" on the store's
 * grouped writes, until killed. Run as
 *   node --import tsx groupedChild.ts <db> <log> <loops>
 * Each loop claims, logs `owner <callId>` once the claim's promise resolved (the moment a tool
 * call would start its side effect), then completes and logs `completed <callId>` once that
 * resolved (the moment the call would return). The parent kills it with SIGKILL and checks that
 * the database holds everything the log says was durable. Tells the parent `ready` over IPC.
 */
import { appendFileSync } from 'node:fs';
import { CheckpointInProgressError } from '../../electron/checkpoints/errors.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import { openAppDatabase } from '../../electron/core/database.js';
import { childInput, childResult } from './childProtocol.js';

const [file, log, loops] = process.argv.slice(2) as [string, string, string];
const db = openAppDatabase(file);
const store = new SqliteCheckpointStore(db);
process.send?.({ type: 'ready' });

let next = 0;
async function loop(): Promise<void> {
  // Runs until killed; the cap only stops a child the parent forgot.
  while (next < 200_000) {
    const callId = `c${next++}`;
    let claimed;
    try {
      claimed = await store.grouped.claim(childInput('grouped', callId, `trace-${callId}`));
    } catch (error) {
      if (error instanceof CheckpointInProgressError) continue; // left started by an earlier kill
      throw error;
    }
    if (claimed.kind === 'replay') continue;
    appendFileSync(log, `owner ${callId}\n`);
    await store.grouped.complete('grouped', callId, claimed.lease, childResult(callId));
    appendFileSync(log, `completed ${callId}\n`);
  }
}

try {
  await Promise.all(Array.from({ length: Number(loops) }, loop));
  db.close();
} catch (error) {
  process.send?.({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
}
process.disconnect?.();
