/**
 * What one durable commit costs on this machine: the checkpoint store's own claim (one
 * `BEGIN IMMEDIATE … COMMIT` with its row and index entries), timed in a loop over the app's
 * database — on a file (WAL, synchronous=NORMAL, the app's settings) and in memory (no file, no
 * locks) — so a call's two commits can be told apart into the file's share (this machine's file
 * system and system calls) and SQLite's own work. Prints µs per commit, then one JSON line.
 * The loops never yield, so the app's checkpointer (a timer) never runs inside them: the WAL is
 * checkpointed and cut back before each timed loop instead, as the checkpointer keeps it bounded.
 * Run: npx tsx bench/sqliteCommitProbe.ts   Knobs: BENCH_COMMITS (5000), BENCH_ROUNDS (5).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCheckpointStore } from '../electron/checkpoints/sqliteStore.js';
import { hashArguments } from '../electron/checkpoints/hash.js';
import { openAppDatabase } from '../electron/core/database.js';
import type { Database } from '../electron/storage/database.js';
import { median } from './pipelineHelpers.js';

const COMMITS = Number(process.env.BENCH_COMMITS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** Starts the WAL over (outside the timed loops); nothing for an in-memory database. */
function checkpointNow(db: Database): void {
  if (!db.memory) db.pragma('wal_checkpoint(TRUNCATE)');
}

function claimLoop(
  db: Database,
  store: SqliteCheckpointStore,
  prefix: string,
): { claimUs: number; completeUs: number } {
  const args = { text: 'hello' };
  const argsHash = hashArguments(args);
  const leases: string[] = [];
  checkpointNow(db);
  let started = performance.now();
  for (let i = 0; i < COMMITS; i++) {
    const claim = store.claim({
      sessionId: 'probe',
      callId: `${prefix}-${i}`,
      userId: 'probe',
      toolName: 'echo',
      serverId: 'fx',
      args,
      argsHash,
      traceId: `t-${prefix}-${i}`,
    });
    if (claim.kind !== 'owner') throw new Error('probe: expected to own the call');
    leases.push(claim.lease);
  }
  const claimUs = ((performance.now() - started) / COMMITS) * 1000;
  checkpointNow(db);
  started = performance.now();
  for (let i = 0; i < COMMITS; i++)
    store.complete('probe', `${prefix}-${i}`, leases[i]!, {
      content: [{ type: 'text', text: 'hello' }],
      structuredContent: undefined,
      isError: false,
    });
  const completeUs = ((performance.now() - started) / COMMITS) * 1000;
  return { claimUs, completeUs };
}

const work = mkdtempSync(join(tmpdir(), 'mh-commit-probe-'));
try {
  const file = openAppDatabase(join(work, 'probe.db'));
  const memory = openAppDatabase(':memory:');
  const dbs = { file, memory };
  const stores = { file: new SqliteCheckpointStore(file), memory: new SqliteCheckpointStore(memory) };
  const figures: Record<'file' | 'memory', Array<{ claimUs: number; completeUs: number }>> = { file: [], memory: [] };
  claimLoop(dbs.file, stores.file, 'warm');
  claimLoop(dbs.memory, stores.memory, 'warm');
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? (['file', 'memory'] as const) : (['memory', 'file'] as const))
      figures[side].push(claimLoop(dbs[side], stores[side], `r${round}`));
  }
  const pick = (side: 'file' | 'memory', key: 'claimUs' | 'completeUs') => median(figures[side].map((f) => f[key]));
  const rows = (['file', 'memory'] as const).map((side) => ({
    side,
    claim: pick(side, 'claimUs'),
    complete: pick(side, 'completeUs'),
  }));
  for (const r of rows)
    console.log(
      `${r.side === 'file' ? 'file (WAL, synchronous=NORMAL)' : 'in memory (no file)           '}  claim ${r.claim.toFixed(1)} µs  complete ${r.complete.toFixed(1)} µs  (one commit each)`,
    );
  const [f, m] = rows as [(typeof rows)[0], (typeof rows)[0]];
  console.log(
    `the file's share of a call's two commits: ${(f.claim + f.complete - m.claim - m.complete).toFixed(1)} µs of ${(f.claim + f.complete).toFixed(1)} µs (${ROUNDS} rounds of ${COMMITS}, medians; ${cpus().length} cores, node ${process.versions.node})`,
  );
  console.log(
    JSON.stringify({
      bench: 'sqlite-commit',
      file_claim_us: +f.claim.toFixed(1),
      file_complete_us: +f.complete.toFixed(1),
      memory_claim_us: +m.claim.toFixed(1),
      memory_complete_us: +m.complete.toFixed(1),
    }),
  );
  file.close();
  memory.close();
} finally {
  rmSync(work, { recursive: true, force: true });
}
