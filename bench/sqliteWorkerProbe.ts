/**
 * Should the pipeline's SQLite writes run on a worker thread? The pipeline's own database work
 * per tool call — the checkpoint claim (waited for), the completion (waited for) and the trace
 * (start, 5 events, finish; written later) through the real SqliteCheckpointStore and Tracer —
 * done two ways in one run, on a temp WAL file with the app's settings:
 * - inline: on this thread, as the app does (group commit);
 * - worker: the same stores on a worker thread with its own connection; this thread posts each
 *   write and awaits the reply (a claim must be durable before the tool runs).
 * For each: sequential latency per call (p50, p99), a concurrent burst's calls/s, and the CPU
 * THIS thread spends per call (process.threadCpuUsage) — what a worker would free for the
 * pipeline's JavaScript — and the whole process's. No MCP server: the database part alone.
 *
 * Run: npx tsx bench/sqliteWorkerProbe.ts   Knobs: PROBE_CALLS (2000), PROBE_ROUNDS (5).
 *
 * What it decided (issue 23, 2 cores at load 16-17 from other work): the writes stay on the
 * main thread. A worker added a hop to every waited-for commit (sequential p50 0.065 → 0.118 ms,
 * and 0.088 → 0.150 in another run: the sequential p50 may not get worse), freed only ~28-52 µs
 * of this thread per call, and cost more CPU in all (process 56 → 74 and 75 → 132 µs per call:
 * cloning, a second event loop) on a second core that is not idle here; burst throughput did not
 * rise (3630 → 3400, 2758 → 1595 calls/s).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { openAppDatabase } from '../electron/core/database.js';
import { SqliteCheckpointStore } from '../electron/checkpoints/sqliteStore.js';
import { checkpointArguments } from '../electron/checkpoints/hash.js';
import { SecretRedactor } from '../electron/secrets/secretRedactor.js';
import { Tracer } from '../electron/tracing/tracer.js';

const CALLS = Number(process.env.PROBE_CALLS ?? 2000);
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 5);

type Request =
  | { id: number; op: 'claim'; i: number; side: string }
  | { id: number; op: 'complete'; i: number; side: string; lease: string; traceId: string };

/** The database side of one call, split where the tool would run. */
function dbSide(file: string) {
  const db = openAppDatabase(file);
  const redactor = new SecretRedactor();
  const checkpoints = new SqliteCheckpointStore(db);
  const tracer = new Tracer(db, { redactor });
  const traces = new Map<string, ReturnType<Tracer['start']>>();
  return {
    db,
    tracer,
    async claim(i: number, side: string): Promise<{ lease: string; traceId: string }> {
      const args = { text: `hello #${i}` };
      const trace = tracer.start({
        sessionId: 's',
        callId: `${side}-${i}`,
        userId: 'u',
        toolName: 'echo',
        serverId: 'fx',
      });
      trace.event('decision', {
        outcome: 'allow',
        reason: 'Rule "bench" allows echo on fx',
        kind: 'rule',
        ruleId: 'r1',
      });
      const claim = await checkpoints.grouped.claim({
        sessionId: 's',
        callId: `${side}-${i}`,
        userId: 'u',
        toolName: 'echo',
        serverId: 'fx',
        ...checkpointArguments(args, (v) => redactor.redactReporting(v)),
        traceId: trace.traceId,
      });
      if (claim.kind !== 'owner') throw new Error('expected a fresh claim');
      trace.event('claim', { outcome: 'owner' });
      trace.event('attempt_started', { attempt: 1 });
      traces.set(trace.traceId, trace);
      return { lease: claim.lease, traceId: trace.traceId };
    },
    async complete(i: number, side: string, lease: string, traceId: string): Promise<void> {
      const trace = traces.get(traceId)!;
      traces.delete(traceId);
      trace.event('attempt_finished', { attempt: 1, outcome: 'ok', durationMs: 0.1 });
      const result = {
        content: [{ type: 'text' as const, text: `hello #${i}` }],
        structuredContent: undefined,
        isError: false,
      };
      await checkpoints.grouped.complete('s', `${side}-${i}`, lease, result);
      trace.event('completed', { isError: false, contentBlocks: 1 });
      trace.finish('ok');
    },
  };
}

if (!isMainThread) {
  const side = dbSide((workerData as { file: string }).file);
  parentPort!.on('message', (request: Request | { op: 'close' }) => {
    if (request.op === 'close') {
      side.tracer.flush();
      side.db.close();
      parentPort!.postMessage({ closed: true });
      return;
    }
    const done =
      request.op === 'claim'
        ? side.claim(request.i, request.side)
        : side.complete(request.i, request.side, request.lease, request.traceId);
    done.then(
      (value) => parentPort!.postMessage({ id: request.id, value }),
      (error: unknown) => parentPort!.postMessage({ id: request.id, error: String(error) }),
    );
  });
} else {
  void main();
}

type Call = (i: number) => Promise<void>;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length))) - 1]!;
}

async function measure(
  call: Call,
  first: number,
): Promise<{ p50: number; p99: number; tput: number; threadUs: number; processUs: number }> {
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await call(first + i);
    samples.push(performance.now() - t0);
  }
  const thread0 = process.threadCpuUsage();
  const proc0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CALLS }, (_, i) => call(first + CALLS + i)));
  const wall = performance.now() - t0;
  const thread = process.threadCpuUsage(thread0);
  const proc = process.cpuUsage(proc0);
  return {
    p50: percentile(samples, 0.5),
    p99: percentile(samples, 0.99),
    tput: CALLS / (wall / 1000),
    threadUs: (thread.user + thread.system) / CALLS,
    processUs: (proc.user + proc.system) / CALLS,
  };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'mh-sqlite-worker-'));
  const inline = dbSide(join(work, 'inline.db'));
  const inlineCall: Call = async (i) => {
    const { lease, traceId } = await inline.claim(i, 'inline');
    await inline.complete(i, 'inline', lease, traceId);
  };

  const worker = new Worker(new URL(import.meta.url), {
    workerData: { file: join(work, 'worker.db') },
    execArgv: ['--import', 'tsx'],
  });
  let nextId = 0;
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  worker.on('message', (message: { id: number; value?: unknown; error?: string }) => {
    const waiter = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error) waiter?.reject(new Error(message.error));
    else waiter?.resolve(message.value);
  });
  const ask = <T>(request: Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id });
    });
  const workerCall: Call = async (i) => {
    const { lease, traceId } = await ask<{ lease: string; traceId: string }>({ op: 'claim', i, side: 'worker' });
    await ask({ op: 'complete', i, side: 'worker', lease, traceId });
  };

  const sides = { inline: inlineCall, worker: workerCall };
  const next = { inline: 0, worker: 0 };
  for (const name of ['inline', 'worker'] as const) {
    await measure(sides[name], next[name]); // warm-up
    next[name] += 2 * CALLS;
  }
  const figures = {
    inline: [] as Awaited<ReturnType<typeof measure>>[],
    worker: [] as Awaited<ReturnType<typeof measure>>[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['inline', 'worker'] as const) : (['worker', 'inline'] as const);
    for (const name of order) {
      figures[name].push(await measure(sides[name], next[name]));
      next[name] += 2 * CALLS;
    }
  }
  const med = (values: number[]) => percentile(values, 0.5);
  console.log('side     seq p50 ms  seq p99 ms  burst calls/s  this thread µs/call  process µs/call');
  for (const name of ['inline', 'worker'] as const) {
    const f = figures[name];
    console.log(
      `${name.padEnd(8)} ${med(f.map((x) => x.p50))
        .toFixed(3)
        .padStart(10)}  ${med(f.map((x) => x.p99))
        .toFixed(3)
        .padStart(10)}  ${med(f.map((x) => x.tput))
        .toFixed(0)
        .padStart(13)}  ${med(f.map((x) => x.threadUs))
        .toFixed(1)
        .padStart(19)}  ${med(f.map((x) => x.processUs))
        .toFixed(1)
        .padStart(15)}`,
    );
  }
  console.log(
    `(${ROUNDS} rounds alternating, medians; ${CALLS} sequential calls then a burst of ${CALLS} per round; per call: claim + completion waited for, trace start + 5 events + finish)`,
  );
  worker.postMessage({ op: 'close' });
  await new Promise((resolve) => worker.once('message', resolve));
  await worker.terminate();
  inline.tracer.flush();
  inline.db.close();
  rmSync(work, { recursive: true, force: true });
}
