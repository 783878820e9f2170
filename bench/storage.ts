/**
 * Benchmark: what the checkpoint record adds to each tool call on each store, in one run —
 * SQLite on a WAL file (the desktop default, through the grouped writes the pipeline uses),
 * SQLite in memory (the floor), and PostgreSQL (the pool of 10 on the server at
 * MINIHARNESS_TEST_POSTGRES_URL, a database of its own for the run; skipped without it).
 *
 * Per store: BENCH_CALLS sequential calls (claim, then complete with a 1 KB result — the two
 * writes the pipeline makes before and after the side effect), p50/p99 per call; then as many
 * concurrent calls (BENCH_CONCURRENCY in flight), calls per second; the concurrent ratio is
 * concurrent throughput over sequential throughput (how much the store gains from overlap).
 * Then the whole pipeline on each store (pipelineStores.ts): p50 added and concurrent ratio over the
 * raw SDK client, SQLite beside PostgreSQL (BENCH_PIPELINE=0 skips it).
 * Prints tables, then one JSON line each. Run: npm run bench:storage
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashArguments } from '../electron/checkpoints/hash.js';
import { openPostgresCheckpoints } from '../electron/checkpoints/postgresStore.js';
import { SqliteCheckpointStore } from '../electron/checkpoints/sqliteStore.js';
import type { CheckpointResult, ClaimInput, ClaimResult } from '../electron/checkpoints/types.js';
import { openAppDatabase } from '../electron/core/database.js';
import { createTestDatabase } from '../test/storage/postgres.js';
import { measurePipelineStores } from './pipelineStores.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 100);
const RESULT: CheckpointResult = {
  content: [{ type: 'text', text: 'x'.repeat(1_024) }],
  structuredContent: undefined,
  isError: false,
};

interface Writes {
  claim(input: ClaimInput): Promise<ClaimResult>;
  complete(sessionId: string, callId: string, lease: string, result: CheckpointResult): Promise<unknown>;
}

function input(run: string, i: number): ClaimInput {
  const args = { path: `/tmp/${run}/${i}` };
  return {
    sessionId: run,
    callId: `c${i}`,
    userId: 'gui',
    toolName: 'write_file',
    serverId: 'fs',
    argsHash: hashArguments(args),
    args,
    traceId: `t${i}`,
  };
}

async function call(store: Writes, run: string, i: number): Promise<void> {
  const claimed = await store.claim(input(run, i));
  if (claimed.kind !== 'owner') throw new Error(`bench: ${run}/c${i} was not new`);
  await store.complete(run, `c${i}`, claimed.lease, RESULT);
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;

interface Figures {
  store: string;
  p50Ms: number;
  p99Ms: number;
  sequentialPerS: number;
  concurrentPerS: number;
  concurrentRatio: number;
}

async function measure(name: string, store: Writes): Promise<Figures> {
  for (let i = 0; i < 200; i++) await call(store, `${name}-warm`, i);
  const latencies: number[] = [];
  const seqStart = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await call(store, `${name}-seq`, i);
    latencies.push(performance.now() - t);
  }
  const seqMs = performance.now() - seqStart;
  let next = 0;
  const conStart = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CALLS) await call(store, `${name}-con`, next++);
    }),
  );
  const conMs = performance.now() - conStart;
  latencies.sort((a, b) => a - b);
  const sequentialPerS = (CALLS / seqMs) * 1_000;
  const concurrentPerS = (CALLS / conMs) * 1_000;
  return {
    store: name,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    sequentialPerS,
    concurrentPerS,
    concurrentRatio: concurrentPerS / sequentialPerS,
  };
}

const figures: Figures[] = [];
const dir = mkdtempSync(join(tmpdir(), 'mh-bench-storage-'));
try {
  const file = openAppDatabase(join(dir, 'bench.db'));
  figures.push(await measure('sqlite-file', new SqliteCheckpointStore(file).grouped));
  file.close();
  const memory = openAppDatabase(':memory:');
  figures.push(await measure('sqlite-memory', new SqliteCheckpointStore(memory).grouped));
  memory.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (process.env.MINIHARNESS_TEST_POSTGRES_URL) {
  const database = await createTestDatabase('bench');
  try {
    const pg = await openPostgresCheckpoints(database.url);
    figures.push(await measure('postgresql', pg.storage));
    await pg.close();
  } finally {
    await database.drop();
  }
} else {
  console.log(
    'PostgreSQL skipped: set MINIHARNESS_TEST_POSTGRES_URL (see README "PostgreSQL") to measure it beside SQLite.',
  );
}

const fmt = (n: number, digits = 2) => n.toFixed(digits).padStart(9);
console.log(`checkpoint record per call (claim + complete, 1 KB result): ${CALLS} calls, ${CONCURRENCY} in flight`);
console.log('store            p50 ms    p99 ms   seq/s    concurrent/s  ratio');
for (const f of figures)
  console.log(
    `${f.store.padEnd(14)} ${fmt(f.p50Ms, 3)} ${fmt(f.p99Ms, 3)} ${fmt(f.sequentialPerS, 0)} ${fmt(f.concurrentPerS, 0)}     ${fmt(f.concurrentRatio)}`,
  );
console.log(JSON.stringify({ bench: 'storage', calls: CALLS, concurrency: CONCURRENCY, figures }));

if (process.env.BENCH_PIPELINE !== '0') {
  const work = mkdtempSync(join(tmpdir(), 'mh-bench-pipeline-stores-'));
  const closers: Array<() => Promise<void> | void> = [];
  const database = process.env.MINIHARNESS_TEST_POSTGRES_URL ? await createTestDatabase('benchpipe') : undefined;
  try {
    const run = await measurePipelineStores(work, database?.url, closers);
    console.log(
      `\nthe pipeline on each store (executeTool over the stdio echo fixture): ${run.calls} calls per round, ${run.rounds} rounds, ${run.concurrency} in flight; load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
    console.log('side                   p50 ms   p50 added ms  concurrent/s  concurrent ratio');
    for (const s of run.sides)
      console.log(
        `${s.side.padEnd(20)} ${fmt(s.p50Ms, 3)} ${fmt(s.p50AddedMs, 3)}      ${fmt(s.concurrentPerS, 0)}     ${fmt(s.concurrentRatio, 3)}`,
      );
    console.log(JSON.stringify({ bench: 'pipeline-stores', ...run }));
  } finally {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  }
}
