/**
 * Benchmark: what the OpenTelemetry export adds to a tool call (goal: p50 + ≤ 0.02 ms).
 *
 * The pipeline (createPipeline: permission engine with an ALLOW rule, SQLite checkpoints and
 * traces on a WAL file, the MCP registry) calling the stdio fixture's `echo`, sequentially, in
 * rounds that alternate three ways (the order turns each round):
 * - off: export off (the app's default);
 * - on: export on to a loopback OTLP/HTTP protobuf receiver that answers at once;
 * - hung: export on to a receiver that never answers (the bounded queue fills; spans are dropped).
 * Printed: p50 and p99 per way (medians over rounds), the p50 differences, and the export's
 * counters (exported, failed, dropped). Then one JSON line.
 *
 * Run: npm run bench:otel. Knobs (env): BENCH_CALLS (1000 per way per round), BENCH_ROUNDS (5), BENCH_WARMUP (200).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceEvent, TraceSummary } from '../shared/traces.js';
import { CallSpans } from '../electron/telemetry/callSpans.js';
import { ExportPipeline } from '../electron/telemetry/exportPipeline.js';
import type { TelemetryConfig } from '../electron/telemetry/telemetry.js';
import { OtlpReceiver } from '../test/doubles/otlpReceiver.js';
import { buildFixtureServers } from '../test/helpers/buildFixtures.js';
import type { TelemetryPipeline } from '../test/helpers/telemetryPipeline.js';
import { startTelemetryPipeline } from '../test/helpers/telemetryPipeline.js';
import { fmt, median, printTable, runBench, runSequential } from './pipelineHelpers.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);

const work = mkdtempSync(join(tmpdir(), 'mh-bench-otel-'));
const closers: Array<() => Promise<void> | void> = [];

type Way = 'off' | 'on' | 'hung';

function exportTo(url: string): TelemetryConfig {
  return {
    protocol: 'http/protobuf',
    url,
    headers: {},
    serviceName: 'bench',
    serviceVersion: '0',
    sampleRatio: 1,
    exportPayloads: false,
  };
}

async function main(): Promise<void> {
  await buildFixtureServers();
  const live = await OtlpReceiver.start();
  const hung = await OtlpReceiver.start();
  hung.mode = 'hang';
  closers.push(
    () => live.close(),
    () => hung.close(),
  );
  const app: TelemetryPipeline = await startTelemetryPipeline(work);
  closers.push(() => app.close());

  const configure = async (way: Way): Promise<void> => {
    await app.telemetry.configure(way === 'off' ? undefined : exportTo(way === 'on' ? live.url : hung.url));
  };
  let n = 0;
  const call = async (): Promise<void> => {
    await app.echo(`bench ${n++}`);
  };

  for (const way of ['off', 'on'] as const) {
    await configure(way);
    await runSequential(call, WARMUP, 0);
  }
  const p50: Record<Way, number[]> = { off: [], on: [], hung: [] };
  const p99: Record<Way, number[]> = { off: [], on: [], hung: [] };
  const ways: Way[] = ['off', 'on', 'hung'];
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...ways.slice(round % 3), ...ways.slice(0, round % 3)];
    for (const way of order) {
      await configure(way);
      const result = await runSequential(call, CALLS, 0);
      p50[way].push(result.p50);
      p99[way].push(result.p99);
    }
  }
  await configure('on');
  await app.telemetry.flush();
  const stats = app.telemetry.stats();
  const figure = (way: Way) => ({ p50: median(p50[way]), p99: median(p99[way]) });
  const figures = { off: figure('off'), on: figure('on'), hung: figure('hung') };
  console.log(`\nOpenTelemetry export: ${ROUNDS} rounds × ${CALLS} sequential echo calls per way (ms per call)\n`);
  printTable([
    ['way', 'p50', 'p99'],
    ['export off', fmt(figures.off.p50, 4), fmt(figures.off.p99, 4)],
    ['export on (collector answers)', fmt(figures.on.p50, 4), fmt(figures.on.p99, 4)],
    ['export on (collector hangs)', fmt(figures.hung.p50, 4), fmt(figures.hung.p99, 4)],
  ]);
  const deltaOn = figures.on.p50 - figures.off.p50;
  const deltaHung = figures.hung.p50 - figures.off.p50;
  console.log(
    `\np50 change, export on: ${fmt(deltaOn, 4)} ms (goal ≤ 0.02 ms); collector hanging: ${fmt(deltaHung, 4)} ms`,
  );
  console.log(
    `spans: exported ${stats.exported}, failed ${stats.failed}, dropped (queue full) ${stats.dropped}; received by the live collector ${live.spans.length}`,
  );
  const spanWork = await measureSpanWork(live.url);
  console.log(
    `the export's own work per call (${SPAN_ITERATIONS} calls' spans): on the call path ${fmt(spanWork.onPath * 1000, 2)} µs; after it (the SDK span made and queued) ${fmt(spanWork.after * 1000, 2)} µs`,
  );
  console.log(
    JSON.stringify({
      bench: 'otel',
      calls: CALLS,
      rounds: ROUNDS,
      figures,
      deltaOn,
      deltaHung,
      spanWorkMs: spanWork,
      stats,
    }),
  );
}

const SPAN_ITERATIONS = Number(process.env.BENCH_SPAN_ITERATIONS ?? 200_000);

/**
 * What export adds synchronously to each call, apart from the machine's noise: the call-span
 * observer (callSpans.ts) fed one call's trace — start, the events of an allowed call, finish —
 * into a real pipeline with its batch processor (median ms per call over 5 runs).
 */
async function measureSpanWork(url: string): Promise<{ onPath: number; after: number }> {
  const pipeline = new ExportPipeline({ ...exportTo(url), maxQueueSize: 2048, scheduledDelayMs: 1_000_000 });
  closers.push(() => pipeline.shutdown());
  const spans = new CallSpans({
    tracer: pipeline.tracer,
    ids: pipeline.ids,
    sampleRatio: 1,
    describeServer: () => ({ transport: 'pipe', protocolVersion: '2025-11-25' }),
    localServerId: 'local',
  });
  const at = Date.now();
  const event = (type: TraceEvent['type'], data: Record<string, unknown>, seq: number): TraceEvent =>
    ({ traceId: 't', seq, type, at, data }) as TraceEvent;
  const events = [
    event('decision', { outcome: 'allow', kind: 'rule', ruleId: 'r1', reason: 'rule' }, 1),
    event('claim', { outcome: 'owner' }, 2),
    event('attempt_started', { attempt: 1 }, 3),
    event('attempt_finished', { attempt: 1, outcome: 'ok', durationMs: 1 }, 4),
    event('completed', { isError: false, contentBlocks: 1 }, 5),
  ];
  const onPath: number[] = [];
  const after: number[] = [];
  const CHUNK = 1000;
  for (let run = 0; run < 5; run++) {
    let pathMs = 0;
    let laterMs = 0;
    for (let done = 0; done < SPAN_ITERATIONS; done += CHUNK) {
      const t0 = performance.now();
      for (let i = done; i < done + CHUNK; i++) {
        const trace: TraceSummary = {
          traceId: `trace-${i}`,
          sessionId: 's',
          callId: `c-${i}`,
          userId: 'u',
          toolName: 'echo',
          serverId: 'fx',
          status: 'running',
          startedAt: at,
        };
        const observed = spans.started(trace);
        void observed.propagation;
        for (const e of events) observed.event(e);
        observed.finished({ ...trace, status: 'ok', endedAt: at + 1, durationMs: 1 });
      }
      const t1 = performance.now();
      // The spans themselves are made after the calls returned (setImmediate): timed apart.
      await new Promise((resolve) => setImmediate(resolve));
      pathMs += t1 - t0;
      laterMs += performance.now() - t1;
    }
    onPath.push(pathMs / SPAN_ITERATIONS);
    after.push(laterMs / SPAN_ITERATIONS);
  }
  return { onPath: median(onPath), after: median(after) };
}

runBench(main, closers, work);
