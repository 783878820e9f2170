/**
 * A MiniHarness core's checkpoint path in a child process, on PostgreSQL, for the cross-process
 * tests. Run as
 *   node --import tsx pgChild.ts race <url> <sessionId> <count> <worker> <effects>
 *   node --import tsx pgChild.ts crash <url> <log> <leaseMs>
 * An owner "runs the tool" by appending a line to a file shared by every process — the side
 * effect a duplicate would show twice.
 */
import { appendFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { CheckpointInProgressError } from '../../electron/checkpoints/errors.js';
import { POSTGRES_CHECKPOINT_MIGRATIONS } from '../../electron/checkpoints/postgresSchema.js';
import { PostgresCheckpointStore } from '../../electron/checkpoints/postgresStore.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import type { ChildMessage } from './childProtocol.js';
import { childInput, childResult } from './childProtocol.js';

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('pgChild.ts must be spawned with an IPC channel'));
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

const open = (url: string) => openPostgres(url, { migrations: { checkpoints: POSTGRES_CHECKPOINT_MIGRATIONS } });

async function race(url: string, sessionId: string, count: number, worker: string, effects: string): Promise<void> {
  const db = await open(url);
  const store = new PostgresCheckpointStore(db.pool, db.where);
  await send({ type: 'ready' });
  await new Promise((resolve) => process.once('message', resolve)); // everyone starts on "go"
  const outcomes: Record<string, string> = {};
  // Every call at once, as a core serving many requests would: the pool interleaves them.
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const callId = `c${i}`;
      try {
        const claimed = await store.claim(childInput(sessionId, callId, `${worker}-${callId}`));
        outcomes[callId] = claimed.kind;
        if (claimed.kind === 'owner') {
          appendFileSync(effects, `ran ${callId} ${worker}\n`);
          await store.complete(sessionId, callId, claimed.lease, childResult(callId));
        } else if (!isDeepStrictEqual(claimed.record.result, childResult(callId))) outcomes[callId] = 'wrong replay';
      } catch (error) {
        outcomes[callId] =
          error instanceof CheckpointInProgressError ? 'in_progress' : `error: ${(error as Error).message}`;
      }
    }),
  );
  await store.close();
  await db.close();
  await send({ type: 'done', outcomes });
}

async function crashLoop(url: string, log: string, leaseMs: number): Promise<void> {
  await send({ type: 'booted' });
  const db = await open(url);
  const store = new PostgresCheckpointStore(db.pool, db.where, { leaseMs });
  await send({ type: 'ready' });
  for (let i = 0; i < 200_000; i++) {
    const callId = `c${i}`;
    let claimed;
    try {
      claimed = await store.claim(childInput('crash', callId, `trace-${callId}`));
    } catch (error) {
      if (!(error instanceof CheckpointInProgressError)) throw error;
      continue; // interrupted by an earlier kill: its lease expires, a person resolves it
    }
    if (claimed.kind === 'replay') {
      if (!isDeepStrictEqual(claimed.record.result, childResult(callId))) throw new Error(`wrong replay for ${callId}`);
      continue;
    }
    // The tool's side effect, after the claim committed and before the result is stored.
    appendFileSync(log, `owner ${callId} ${claimed.lease}\n`);
    await store.complete('crash', callId, claimed.lease, childResult(callId));
    appendFileSync(log, `completed ${callId}\n`);
  }
}

const [mode, url, ...rest] = process.argv.slice(2);
try {
  if (mode === 'race' && url && rest.length === 4)
    await race(url, rest[0] as string, Number(rest[1]), rest[2] as string, rest[3] as string);
  else if (mode === 'crash' && url && rest.length === 2) await crashLoop(url, rest[0] as string, Number(rest[1]));
  else
    throw new Error(`usage: pgChild.ts race <url> <session> <count> <worker> <effects> | crash <url> <log> <leaseMs>`);
} catch (error) {
  await send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
}
process.disconnect?.();
