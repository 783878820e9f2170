/**
 * The owner's heartbeat on the real clock: a call longer than its lease keeps it while its owner
 * lives, and a lease whose owner stopped renewing expires and is fenced. Time passing is what is
 * tested, so the test polls the stored expiry rather than sleeping a guessed amount.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { CheckpointInProgressError, CheckpointLeaseLostError } from '../../electron/checkpoints/errors.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import { openAppDatabase } from '../../electron/core/database.js';
import { callInput, textResult } from './conformance.js';

// Renewed every 500 ms: only an event loop stalled for a whole second would miss it.
const LEASE_MS = 1_500;

it("renews a live owner's lease past its duration, and lets a stopped owner's lease expire", async () => {
  const db = openAppDatabase(':memory:');
  const store = new SqliteCheckpointStore(db, { leaseMs: LEASE_MS });
  const expiry = (callId: string) =>
    db
      .prepare<[string], number>('SELECT lease_expires_at FROM checkpoints WHERE call_id = ?')
      .pluck()
      .get(callId) as number;
  const inProgress = (callId: string): CheckpointInProgressError => {
    try {
      store.claim(callInput(callId));
    } catch (error) {
      if (error instanceof CheckpointInProgressError) return error;
      throw error;
    }
    throw new Error('expected "in progress"');
  };
  try {
    const long = store.claim(callInput('long'));
    if (long.kind !== 'owner') throw new Error('expected an owner');
    const first = expiry('long');
    while (expiry('long') < first + LEASE_MS) await sleep(20); // renewed after its first expiry passed
    expect(Date.now()).toBeGreaterThan(first); // the first lease would have expired by now
    expect(inProgress('long').ownerGone).toBe(false);
    expect(store.complete('s1', 'long', long.lease, textResult('late but owned')).status).toBe('completed');

    const dies = store.claim(callInput('dies'));
    if (dies.kind !== 'owner') throw new Error('expected an owner');
    store.stopLeases(); // as when the owner's process is killed
    const deadline = expiry('dies');
    while (Date.now() <= deadline) await sleep(20);
    expect(inProgress('dies').ownerGone).toBe(true);
    expect(() => store.complete('s1', 'dies', dies.lease, textResult('too late'))).toThrow(CheckpointLeaseLostError);
  } finally {
    store.stopLeases();
    db.close();
  }
});
