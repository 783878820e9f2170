/**
 * A child process for the cross-process tests. Run as
 *   node --import tsx child.ts race <db> <sessionId> <count> <worker>
 *   node --import tsx child.ts crash <db> <log>
 * It talks to the parent over the IPC channel (see ChildMessage).
 */
import { appendFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { CheckpointInProgressError } from '../../electron/checkpoints/errors.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import { openAppDatabase } from '../../electron/core/database.js';
import type { ChildMessage } from './childProtocol.js';
import { childInput, childResult } from './childProtocol.js';

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('child.ts must be spawned with an IPC channel'));
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

/** Simulated work: spins (a sleeping process is not killed "mid-write"). */
function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin
  }
}

async function race(file: string, sessionId: string, count: number, worker: string): Promise<void> {
  const db = openAppDatabase(file);
  const store = new SqliteCheckpointStore(db);
  await send({ type: 'ready' });
  await new Promise((resolve) => process.once('message', resolve)); // the barrier: everyone starts on "go"
  const outcomes: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const callId = `c${i}`;
    try {
      const claimed = store.claim(childInput(sessionId, callId, `${worker}-${callId}`));
      outcomes[callId] = claimed.kind;
      if (claimed.kind === 'owner') {
        busyWait(0.2); // a short call, so the others also meet it `started`, not only completed
        store.complete(sessionId, callId, claimed.lease, childResult(callId));
      } else if (!isDeepStrictEqual(claimed.record.result, childResult(callId))) outcomes[callId] = 'wrong replay';
    } catch (error) {
      outcomes[callId] =
        error instanceof CheckpointInProgressError ? 'in_progress' : `error: ${(error as Error).message}`;
    }
  }
  db.close();
  await send({ type: 'done', outcomes });
}

async function crashLoop(file: string, log: string): Promise<void> {
  await send({ type: 'booted' });
  const db = openAppDatabase(file);
  const store = new SqliteCheckpointStore(db);
  await send({ type: 'ready' });
  // Runs until killed; the cap only stops a child the parent forgot.
  for (let i = 0; i < 200_000; i++) {
    const callId = `c${i}`;
    let claimed;
    try {
      claimed = store.claim(childInput('crash', callId, `trace-${callId}`));
    } catch (error) {
      if (!(error instanceof CheckpointInProgressError)) throw error;
      continue; // interrupted by an earlier kill: left for a person to resolve
    }
    if (claimed.kind === 'replay') {
      if (!isDeepStrictEqual(claimed.record.result, childResult(callId))) throw new Error(`wrong replay for ${callId}`);
      continue;
    }
    // Logged after the claim commits and before the next step, so the log never claims more than the database holds.
    appendFileSync(log, `owner ${callId}\n`);
    busyWait(Math.random() * 1.5);
    store.complete('crash', callId, claimed.lease, childResult(callId));
    appendFileSync(log, `completed ${callId}\n`);
  }
  db.close();
}

const [mode, file, ...rest] = process.argv.slice(2);
try {
  if (mode === 'race' && file && rest.length === 3)
    await race(file, rest[0] as string, Number(rest[1]), rest[2] as string);
  else if (mode === 'crash' && file && rest.length === 1) await crashLoop(file, rest[0] as string);
  else
    throw new Error(
      `usage: child.ts race <db> <sessionId> <count> <worker> | crash <db> <log> (got ${process.argv.slice(2).join(' ')})`,
    );
} catch (error) {
  await send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
}
process.disconnect?.();
