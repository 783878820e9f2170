/**
 * Benchmark: what the OpenTelemetry export adds to a tool call (goal: p50 + ≤ 0.02 ms).
 *
 * The pipeline (createPipeline: permission engine with an ALLOW rule, SQLite checkpoints and
 * traces on a WAL file, the MCP registry) calling the stdio fixture's `echo`, sequentially, in
 * rounds that alternate four ways (the order turns each round):
 * - off: export off (the app's default);
 * - on: export on (spans and metrics) to a loopback OTLP/HTTP protobuf receiver in a process of
 *   its own (as a collector is: its decoding is not on this event loop) that answers at once;
 * - memory: export on to exporters that accept at once in memory — the app's own span and metric
 *   work, without serializing or sending;
 * - hung: export on to a receiver that never answers (the bounded queue fills; spans are dropped).
 * Printed: the load average, p50 and p99 per way (medians over rounds), the CPU per call of the
 * calls' thread (process.threadCpuUsage: what export costs that thread, whatever the machine's load)
 * and of the whole process (the export worker's thread included), the p50 differences, and the
 * export's counters (exported, failed, dropped). Then one JSON line; then the process exits.
 *
 * Run: npm run bench:otel. Knobs (env): BENCH_CALLS (1000 per way per round), BENCH_ROUNDS (5), BENCH_WARMUP (200),
 * BENCH_ROUND_WARMUP (600 untimed calls after each configuration), BENCH_WAYS (off,on,memory,hung: the ways
 * timed; a way left out prints as –).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { AggregationTemporality } from '@opentelemetry/sdk-metrics';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { TraceEvent, TraceSummary } from '../shared/traces.js';
import type { TraceObserver } from '../electron/tracing/tracer.js';
import { endSandboxSession } from '../electron/sandbox/serverSandbox.js';
import { CallSpans } from '../electron/telemetry/callSpans.js';
import { ExportPipeline, createExporter } from '../electron/telemetry/exportPipeline.js';
import type { WorkerSpanExporter } from '../electron/telemetry/workerExporter.js';
import type { TelemetryConfig } from '../electron/telemetry/telemetry.js';
import { buildFixtureServers } from '../test/helpers/buildFixtures.js';
import { PROJECT_ROOT } from '../test/helpers/fixtures.js';
import type { TelemetryPipeline } from '../test/helpers/telemetryPipeline.js';
import { startTelemetryPipeline } from '../test/helpers/telemetryPipeline.js';
import { fmt, median, percentile, printTable, runBench, runSequential } from './pipelineHelpers.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const ROUND_WARMUP = Number(process.env.BENCH_ROUND_WARMUP ?? 600);

const work = mkdtempSync(join(tmpdir(), 'mh-bench-otel-'));
const closers: Array<() => Promise<void> | void> = [];

type Way = 'off' | 'on' | 'memory' | 'hung';
const MEMORY = 'http://memory.invalid/v1/traces';

/** Accepts every export at once (the `memory` way). */
const memorySpans: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: () => Promise.resolve(),
};
const memoryMetrics: PushMetricExporter = {
  export: (_metrics, done) => done({ code: ExportResultCode.SUCCESS }),
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
  selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
};

/** The receiver double in a process of its own; its URL and a way to read its counts. */
async function receiverProcess(hang: boolean): Promise<{ url: string; counts(): Promise<{ spans: number }> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'test', 'doubles', 'otlpReceiverProcess.ts'), ...(hang ? ['--hang'] : [])],
    { cwd: PROJECT_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  closers.push(async () => {
    child.stdin.end();
    if (child.exitCode === null) await once(child, 'exit');
  });
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    counts: async () => (await (await fetch(url)).json()) as { spans: number },
  };
}

function exportTo(url: string): TelemetryConfig {
  return {
    protocol: 'http/protobuf',
    url,
    metricsUrl: url.replace(/\/v1\/traces$/, '/v1/metrics'),
    headers: {},
    serviceName: 'bench',
    serviceVersion: '0',
    sampleRatio: 1,
    exportPayloads: false,
    exportMetrics: true,
  };
}

async function main(): Promise<void> {
  // Last to close: the sandbox library's session (its proxy server and socat bridge) the fixture ran under —
  // left open, it kept the process alive after the figures were printed.
  closers.push(() => endSandboxSession());
  await buildFixtureServers();
  const loadBefore = loadavg();
  const live = await receiverProcess(false);
  const hung = await receiverProcess(true);
  const inMemory = (config: TelemetryConfig | { url: string | undefined }) => config.url === MEMORY;
  const app: TelemetryPipeline = await startTelemetryPipeline(work, 'fx', {
    exporterFor: (config) => (inMemory(config) ? memorySpans : createExporter(config)),
    // Else the OTLP one, in the export worker.
    metricExporterFor: (config) => (inMemory(config) ? memoryMetrics : undefined),
  });
  closers.push(() => app.close());

  const urls: Record<Exclude<Way, 'off'>, string> = { on: live.url, memory: MEMORY, hung: hung.url };
  const configure = async (way: Way): Promise<void> => {
    await app.telemetry.configure(way === 'off' ? undefined : exportTo(urls[way]));
    // A configuration's one-off start (the export worker thread loading its modules) is not a call's cost.
    await app.telemetry.ready();
  };
  let n = 0;
  const call = async (): Promise<void> => {
    await app.echo(`bench ${n++}`);
  };

  for (const way of ['off', 'on'] as const) {
    await configure(way);
    await runSequential(call, WARMUP, 0);
  }
  const p50: Record<Way, number[]> = { off: [], on: [], memory: [], hung: [] };
  const p99: Record<Way, number[]> = { off: [], on: [], memory: [], hung: [] };
  /** CPU µs per call: this (the calls') thread, and the whole process (the export worker's thread included). */
  const cpu: Record<Way, { thread: number[]; process: number[] }> = {
    off: { thread: [], process: [] },
    on: { thread: [], process: [] },
    memory: { thread: [], process: [] },
    hung: { thread: [], process: [] },
  };
  const ways = (process.env.BENCH_WAYS ?? 'off,on,memory,hung').split(',') as Way[];
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...ways.slice(round % ways.length), ...ways.slice(0, round % ways.length)];
    for (const way of order) {
      await configure(way);
      // Untimed calls first: the new export worker's first batches (its code compiled, its start-up's
      // garbage collected) are the configuration's one-off, not the calls'.
      await runSequential(call, ROUND_WARMUP, 0);
      const thread0 = process.threadCpuUsage();
      const process0 = process.cpuUsage();
      const result = await runSequential(call, CALLS, 0);
      const thread = process.threadCpuUsage(thread0);
      const whole = process.cpuUsage(process0);
      cpu[way].thread.push((thread.user + thread.system) / CALLS);
      cpu[way].process.push((whole.user + whole.system) / CALLS);
      p50[way].push(result.p50);
      p99[way].push(result.p99);
    }
  }
  await configure('on');
  const paired = await pairedBlocks(app, call);
  await app.telemetry.flush();
  const stats = app.telemetry.stats();
  const figure = (way: Way) => ({
    p50: median(p50[way]),
    p99: median(p99[way]),
    cpuUsThread: median(cpu[way].thread),
    cpuUsProcess: median(cpu[way].process),
  });
  const figures = { off: figure('off'), on: figure('on'), memory: figure('memory'), hung: figure('hung') };
  const loadAfter = loadavg();
  const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(' ');
  console.log(`\nOpenTelemetry export: ${ROUNDS} rounds × ${CALLS} sequential echo calls per way (ms per call)`);
  console.log(`load average (1, 5, 15 min): before ${load(loadBefore)}; after ${load(loadAfter)}\n`);
  const row = (label: string, way: Way) => [
    label,
    fmt(figures[way].p50, 4),
    fmt(figures[way].p99, 4),
    fmt(figures[way].cpuUsThread, 1),
    fmt(figures[way].cpuUsProcess, 1),
  ];
  printTable([
    ['way', 'p50', 'p99', 'CPU µs/call (calls’ thread)', 'CPU µs/call (process)'],
    row('export off', 'off'),
    row('export on (collector answers)', 'on'),
    row('export on (in-memory exporters)', 'memory'),
    row('export on (collector hangs)', 'hung'),
  ]);
  const deltaOn = figures.on.p50 - figures.off.p50;
  const deltaMemory = figures.memory.p50 - figures.off.p50;
  const deltaHung = figures.hung.p50 - figures.off.p50;
  console.log(
    `\np50 change, export on: ${fmt(deltaOn, 4)} ms (goal ≤ 0.02 ms); in-memory exporters: ${fmt(deltaMemory, 4)} ms; collector hanging: ${fmt(deltaHung, 4)} ms`,
  );
  const cpuChange = (way: Way) => fmt(figures[way].cpuUsThread - figures.off.cpuUsThread, 1);
  console.log(
    `CPU of the calls' thread per call vs export off (CPU time, not wall time; still noisy on a loaded machine): on +${cpuChange('on')} µs; in-memory +${cpuChange('memory')} µs; hung +${cpuChange('hung')} µs`,
  );
  console.log(
    `spans: exported ${stats.exported}, failed ${stats.failed}, dropped (queue full) ${stats.dropped}; received by the live collector ${(await live.counts()).spans}`,
  );
  console.log(
    `paired (export on to the live collector; its call-span observer attached, not, or attached without the traceparent in _meta, in turn every ${PAIR_BLOCK} calls, ${PAIR_BLOCKS} blocks): p50 ${fmt(paired.off, 4)} ms without, ${fmt(paired.on, 4)} ms with: change ${fmt(paired.on - paired.off, 4)} ms; attached but giving the server no traceparent in _meta ${fmt(paired.noMeta, 4)} ms: change ${fmt(paired.noMeta - paired.off, 4)} ms`,
  );
  const spanWork = await measureSpanWork(live.url);
  console.log(
    `the export's own work per call on the calls' thread (${SPAN_ITERATIONS} calls' spans): on the call path ${fmt(spanWork.onPath * 1000, 2)} µs; after it (the call's record made and posted to the export worker, which makes the SDK span and records the metric) ${fmt(spanWork.after * 1000, 2)} µs; the calls' thread's CPU in all ${fmt(spanWork.cpuUs, 2)} µs`,
  );
  const batchExport = await measureBatchExport(live.url);
  console.log(
    `a batch's export per span (${BATCH} spans to the live collector, ${BATCH_RUNS} times), on the calls' thread: the OTLP exporter there ${fmt(batchExport.inThread.sync, 2)} µs in export(), ${fmt(batchExport.inThread.cpu, 2)} µs CPU in all; handed to the export worker ${fmt(batchExport.worker.sync, 2)} µs in export(), ${fmt(batchExport.worker.cpu, 2)} µs CPU in all`,
  );
  console.log(
    JSON.stringify({
      bench: 'otel',
      calls: CALLS,
      rounds: ROUNDS,
      loadavg: { before: loadBefore, after: loadAfter },
      figures,
      deltaOn,
      deltaMemory,
      deltaHung,
      paired,
      spanWorkMs: spanWork,
      batchExportCpuUsPerSpan: batchExport,
      stats,
    }),
  );
}

const PAIR_BLOCK = 20;
const PAIR_BLOCKS = Number(process.env.BENCH_PAIR_BLOCKS ?? 300);

/**
 * The per-call part alone: export stays on (its timers, batches and HTTP keep running for both
 * sets alike), and the call-span observer on the app's tracer is attached for one block of calls
 * and detached for the next. The machine's drift then hits both sets the same; what differs is
 * what a call itself does for its span.
 */
async function pairedBlocks(
  app: TelemetryPipeline,
  call: () => Promise<void>,
): Promise<{ on: number; off: number; noMeta: number }> {
  const tracer = app.pipeline.tracer;
  const observer = tracer.observer;
  // The observer without its `traceparent` for the server (`_meta` left out): what the span work itself costs.
  const noMeta: TraceObserver | undefined = observer && {
    started: (trace) => {
      const observed = observer.started(trace);
      if (!observed) return undefined;
      return { event: (e) => observed.event(e), finished: (t) => observed.finished(t), propagation: undefined };
    },
  };
  const samples = { on: [] as number[], off: [] as number[], noMeta: [] as number[] };
  const states = ['on', 'off', 'noMeta'] as const;
  for (let block = 0; block < PAIR_BLOCKS; block++) {
    const state = states[block % 3] ?? 'off';
    tracer.observer = state === 'on' ? observer : state === 'noMeta' ? noMeta : undefined;
    samples[state].push(...(await runSequential(call, PAIR_BLOCK, 0)).samples);
  }
  tracer.observer = observer;
  return {
    on: percentile(samples.on, 0.5),
    off: percentile(samples.off, 0.5),
    noMeta: percentile(samples.noMeta, 0.5),
  };
}

const SPAN_ITERATIONS = Number(process.env.BENCH_SPAN_ITERATIONS ?? 200_000);

/** One allowed call's trace as the call-span observer sees it: start, its events, finish. */
function callFeeder(spans: CallSpans): (i: number) => void {
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
  return (i) => {
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
  };
}

/**
 * The call-span observer on a pipeline of its own whose spans go to `exporter` (made on this thread), or
 * to the export worker (the app's way: `exporter` undefined).
 */
async function spanPipeline(url: string, exporter: SpanExporter | undefined): Promise<CallSpans> {
  const config = { ...exportTo(url), maxQueueSize: 2048, scheduledDelayMs: 1_000_000 };
  const pipeline = new ExportPipeline(config, exporter ?? createExporter(config), memoryMetrics);
  closers.push(() => pipeline.shutdown());
  await pipeline.ready();
  return new CallSpans({
    send: (records) => pipeline.calls(records),
    measured: true,
    ids: pipeline.ids,
    sampleRatio: 1,
    describeServer: () => ({ transport: 'pipe', protocolVersion: '2025-11-25' }),
    localServerId: 'local',
  });
}

/**
 * What export adds synchronously to each call, apart from the machine's noise: the call-span
 * observer (callSpans.ts) fed one call's trace — start, the events of an allowed call, finish —
 * into a real pipeline whose export worker takes the records (median ms per call over 5 runs; the
 * worker's own work is on its thread, and its queue's bound drops most of these spans).
 */
async function measureSpanWork(url: string): Promise<{ onPath: number; after: number; cpuUs: number }> {
  const spans = await spanPipeline(url, undefined);
  const feed = callFeeder(spans);
  const onPath: number[] = [];
  const after: number[] = [];
  const cpuUs: number[] = [];
  const CHUNK = 1000;
  for (let run = 0; run < 5; run++) {
    const cpu0 = process.threadCpuUsage();
    let pathMs = 0;
    let laterMs = 0;
    for (let done = 0; done < SPAN_ITERATIONS; done += CHUNK) {
      const t0 = performance.now();
      for (let i = done; i < done + CHUNK; i++) feed(i);
      const t1 = performance.now();
      // The spans themselves are made after the calls returned (idle batches): timed apart.
      void spans.drain();
      pathMs += t1 - t0;
      laterMs += performance.now() - t1;
      // The batch processor's exports (in memory) settle between chunks, as they would between calls.
      await new Promise((resolve) => setImmediate(resolve));
    }
    onPath.push(pathMs / SPAN_ITERATIONS);
    after.push(laterMs / SPAN_ITERATIONS);
    const cpu = process.threadCpuUsage(cpu0);
    cpuUs.push((cpu.user + cpu.system) / SPAN_ITERATIONS);
  }
  return { onPath: median(onPath), after: median(after), cpuUs: median(cpuUs) };
}

const BATCH = 512;
const BATCH_RUNS = Number(process.env.BENCH_BATCH_RUNS ?? 100);

/**
 * Where a batch's export costs the calls' thread: the same 512 call spans exported to the live
 * collector by the official OTLP/protobuf exporter on this thread (serialisation, HTTP, the answer)
 * and by the app's exporter, which hands them to its worker thread. Per span: the time export()
 * itself takes (performance.now), and this thread's CPU from export() to the result, summed over
 * every run (process.threadCpuUsage: the kernel counts it in ticks, so only a total means much).
 */
async function measureBatchExport(url: string): Promise<Record<'inThread' | 'worker', { sync: number; cpu: number }>> {
  const captured: ReadableSpan[] = [];
  const capture: SpanExporter = {
    export: (spans, done) => {
      captured.push(...spans);
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: () => Promise.resolve(),
  };
  const spans = await spanPipeline(url, capture);
  const feed = callFeeder(spans);
  for (let i = 0; i < BATCH; i++) feed(i);
  await spans.drain();
  while (captured.length < BATCH) await new Promise((resolve) => setImmediate(resolve));
  const batch = captured.slice(0, BATCH);
  const inThread = new ProtoExporter({ url, timeoutMillis: 10_000 });
  const worker = createExporter(exportTo(url)) as WorkerSpanExporter;
  closers.push(
    () => inThread.shutdown(),
    () => worker.shutdown(),
  );
  await worker.ready;
  const perSpan = async (exporter: SpanExporter): Promise<{ sync: number; cpu: number }> => {
    let syncMs = 0;
    const before = process.threadCpuUsage();
    for (let run = 0; run < BATCH_RUNS; run++) {
      let settled!: (result: ExportResult) => void;
      const result = new Promise<ExportResult>((resolve) => (settled = resolve));
      const t0 = performance.now();
      exporter.export(batch, settled);
      syncMs += performance.now() - t0;
      if ((await result).code !== ExportResultCode.SUCCESS) throw new Error('the live collector refused a batch');
    }
    const used = process.threadCpuUsage(before);
    const spans = BATCH_RUNS * batch.length;
    return { sync: (syncMs * 1000) / spans, cpu: (used.user + used.system) / spans };
  };
  return { inThread: await perSpan(inThread), worker: await perSpan(worker) };
}

runBench(main, closers, work);
