/**
 * The OTLP export's worker thread (exportPipeline.ts, `WorkerSpanExporter`), and the export's work
 * that may run on either thread (the app's thread uses it when the worker cannot, or with the
 * benchmark's in-memory exporters).
 *
 * Here run the official OTLP/HTTP exporters (protobuf or JSON) — serialisation, the HTTP request,
 * its retries and timeout — and the per-call span work: the app's thread posts each call as a
 * plain, already redacted record (`CallRecord`, batched), with the ids and the sampling decision
 * it chose when the call started (the server was given that `traceparent` at once); this thread
 * makes, fills and ends the SDK span with those ids, queues it in its own bounded batch processor
 * (drops counted, reported back) and records the MCP duration histograms (metrics, one
 * MeterProvider here). The spans the app's thread makes itself (the gateway's request spans, the
 * runs') arrive as plain span records (`PlainSpan`) and go out through the same exporter.
 *
 * A module of its own, built like the WAL checkpointer's worker (electron.vite.config.ts emits it
 * beside the main bundle); from the sources (tests, tsx) Node runs this file with its built-in type
 * stripping, so it uses only erasable TypeScript and imports nothing of ours.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type {
  Attributes,
  Context,
  HrTime,
  Histogram,
  Link,
  SpanContext,
  SpanKind,
  SpanStatus,
  Tracer,
} from '@opentelemetry/api';
import { ROOT_CONTEXT, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode, TraceState } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { Resource } from '@opentelemetry/resources';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { InstrumentType, PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type {
  IdGenerator,
  ReadableSpan,
  Span,
  SpanExporter,
  SpanProcessor,
  TimedEvent,
} from '@opentelemetry/sdk-trace';
import { AlwaysOnSampler, BatchSpanProcessor, RandomIdGenerator, TracerProvider } from '@opentelemetry/sdk-trace';

/** An OTLP/HTTP exporter's options. */
export interface ExporterOptions {
  protocol: 'http/protobuf' | 'http/json';
  /** Undefined: the `OTEL_EXPORTER_OTLP_*` variables (the worker shares the process's environment). */
  url: string | undefined;
  headers: Record<string, string>;
  timeoutMillis: number;
}

/** What the app's thread hands the worker: the exporter's options, the pipeline's resource, the call spans' queue, the metrics. */
export interface ExportWorkerData extends ExporterOptions {
  /** Marks the thread as the export worker: the app's thread imports this module too (the work it shares). */
  otlpExportWorker: true;
  resource: Attributes;
  /** The call spans made here: their queue's bound and the batch processor's delay. */
  calls?: { maxQueueSize: number; scheduledDelayMs: number } | undefined;
  /** The metrics (made here on the first record): the collector's metrics URL and the reader's interval. */
  metrics?: { url: string | undefined; intervalMs: number } | undefined;
}

/** A span context without methods: the trace state as its W3C header text. */
export interface PlainContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean | undefined;
  traceState?: string | undefined;
}

/** A span as the exporter reads it, without methods: what a structured clone carries. */
export interface PlainSpan {
  name: string;
  kind: SpanKind;
  context: PlainContext;
  parent?: PlainContext | undefined;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  attributes: Attributes;
  status: SpanStatus;
  events: TimedEvent[];
  links: Array<{ context: PlainContext; attributes?: Attributes | undefined }>;
  dropped: [attributes: number, events: number, links: number];
  scope: { name: string; version?: string | undefined; schemaUrl?: string | undefined };
}

/**
 * One ended call, as the app's thread posts it (plain, already redacted: the attributes come from the
 * trace's stored events and the payloads from the redacted store). `span` false: not sampled — only
 * its requests are measured.
 */
export interface CallRecord {
  span: boolean;
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  parent?: PlainContext | undefined;
  /** Epoch ms. */
  start: number;
  end: number;
  attributes: Attributes;
  events?: Array<[name: string, attributes: Attributes, at: number]> | undefined;
  /** The status message when the span is an error (`error.type` set). */
  errorMessage?: string | undefined;
  /** The MCP requests sent for it (each attempt): ms and error type, for `mcp.client.operation.duration`. */
  requests?: Array<[ms: number, errorType: string | undefined]> | undefined;
}

/** One request the gateway served: seconds and the metric's attributes (`mcp.server.operation.duration`). */
export type ServedRecord = [seconds: number, attributes: Attributes];

type WireError = { code?: number; data?: string; message?: string } | undefined;

export type ExportWorkerRequest =
  | { export: number; spans: PlainSpan[] }
  | { calls: CallRecord[]; served: ServedRecord[] }
  | { flush: number }
  | { shutdown: true };

/** What the worker's own call spans did since its last report (added to the pipeline's counters). */
export interface Counts {
  exported: number;
  failed: number;
  dropped: number;
}

export type ExportWorkerReply =
  | { settled: number; ok: boolean; error?: WireError }
  | { counts: Counts; error?: WireError; metricsError?: WireError }
  | { flushed: number }
  | { shutdownDone: true }
  | { ready: true };

export function contextOf(plain: PlainContext): SpanContext {
  const { traceState, ...ids } = plain;
  return traceState !== undefined ? { ...ids, traceState: new TraceState(traceState) } : ids;
}

/** The span the exporter reads (otlp-transformer: the fields below and `spanContext()`). */
function readableOf(plain: PlainSpan, resource: ReadableSpan['resource']): ReadableSpan {
  const context = contextOf(plain.context);
  const links: Link[] = plain.links.map((link) => ({
    context: contextOf(link.context),
    ...(link.attributes ? { attributes: link.attributes } : {}),
  }));
  return {
    name: plain.name,
    kind: plain.kind,
    spanContext: () => context,
    ...(plain.parent ? { parentSpanContext: contextOf(plain.parent) } : {}),
    startTime: plain.startTime,
    endTime: plain.endTime,
    duration: plain.duration,
    ended: true,
    status: plain.status,
    attributes: plain.attributes,
    events: plain.events,
    links,
    resource,
    instrumentationScope: plain.scope,
    droppedAttributesCount: plain.dropped[0],
    droppedEventsCount: plain.dropped[1],
    droppedLinksCount: plain.dropped[2],
  };
}

/** What of an exporter's error crosses back: its HTTP status, body and message (no request, no headers). */
function errorOf(error: unknown): WireError {
  if (!error || typeof error !== 'object') return undefined;
  const { code, data, message } = error as { code?: unknown; data?: unknown; message?: unknown };
  return {
    ...(typeof code === 'number' ? { code } : {}),
    ...(typeof data === 'string' ? { data } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}

/** The official OTLP span exporter for a protocol; the env variables fill in what the options leave out. */
export function spanExporterOf(options: ExporterOptions): SpanExporter {
  const settings = {
    ...(options.url ? { url: options.url } : {}),
    ...(Object.keys(options.headers).length > 0 ? { headers: { ...options.headers } } : {}),
    timeoutMillis: options.timeoutMillis,
  };
  return options.protocol === 'http/json' ? new JsonExporter(settings) : new ProtoExporter(settings);
}

/** The official OTLP metrics exporter; the `OTEL_EXPORTER_OTLP_(METRICS_)*` variables fill in what the options leave out. */
export function metricExporterOf(options: ExporterOptions): PushMetricExporter {
  const settings = {
    ...(options.url ? { url: options.url } : {}),
    ...(Object.keys(options.headers).length > 0 ? { headers: { ...options.headers } } : {}),
    timeoutMillis: options.timeoutMillis,
  };
  return options.protocol === 'http/json' ? new JsonMetricExporter(settings) : new ProtoMetricExporter(settings);
}

/**
 * The ids of a span decided before the span is made: a call's span context is fixed when its trace starts
 * (the server gets it in `_meta` at once), but the SDK span is made later, off the call path. The
 * provider's IdGenerator hands out the ids set for the next `startSpan`, and random ones otherwise.
 */
export class PresetIds implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  #traceId: string | undefined;
  #spanId: string | undefined;

  generateTraceId(): string {
    return this.#traceId ?? this.#random.generateTraceId();
  }

  generateSpanId(): string {
    return this.#spanId ?? this.#random.generateSpanId();
  }

  newTraceId(): string {
    return this.#random.generateTraceId();
  }

  newSpanId(): string {
    return this.#random.generateSpanId();
  }

  /** Runs `make` (one startSpan) with these ids; the trace id is used only when the span has no parent. */
  with<T>(traceId: string, spanId: string, make: () => T): T {
    this.#traceId = traceId;
    this.#spanId = spanId;
    try {
      return make();
    } finally {
      this.#traceId = undefined;
      this.#spanId = undefined;
    }
  }
}

/** Where a batch processor counts its spans: sent, failed (with the exporter's error), dropped (queue full). */
export interface Tally {
  exported(count: number): void;
  failed(count: number, error: unknown): void;
  dropped(count: number): void;
}

/** Counts what the wrapped exporter sent and what failed. */
class CountingExporter implements SpanExporter {
  // Fields written out: this file runs with Node's type stripping (no parameter properties).
  readonly inner: SpanExporter;
  readonly tally: Tally;
  readonly settled: (count: number) => void;

  constructor(inner: SpanExporter, tally: Tally, settled: (count: number) => void) {
    this.inner = inner;
    this.tally = tally;
    this.settled = settled;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.tally.exported(spans.length);
      else this.tally.failed(spans.length, result.error);
      this.settled(spans.length);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** A batch processor behind a queue bound of our own, so a full queue is counted (the SDK's only logs it). */
export class BoundedBatchProcessor implements SpanProcessor {
  #pending = 0;
  readonly #idle: Array<() => void> = [];
  readonly #batch: BatchSpanProcessor;

  readonly #tally: Tally;
  readonly #maxQueue: number;

  constructor(
    exporter: SpanExporter,
    tally: Tally,
    maxQueue: number,
    scheduledDelayMs: number,
    exportTimeoutMs: number,
  ) {
    this.#tally = tally;
    this.#maxQueue = maxQueue;
    const counting = new CountingExporter(exporter, tally, (count) => {
      this.#pending = Math.max(0, this.#pending - count);
      if (this.#pending === 0) for (const resolve of this.#idle.splice(0)) resolve();
    });
    this.#batch = new BatchSpanProcessor({
      exporter: counting,
      maxQueueSize: maxQueue,
      maxExportBatchSize: Math.min(512, maxQueue),
      scheduledDelayMillis: scheduledDelayMs,
      // A safety net only: the exporter's own timeout answers first.
      exportTimeoutMillis: exportTimeoutMs + 5000,
    });
  }

  onStart(span: Span, parentContext: Context): void {
    this.#batch.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.#pending >= this.#maxQueue) {
      this.#tally.dropped(1);
      return;
    }
    this.#pending++;
    this.#batch.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.#batch.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#batch.shutdown();
  }

  /** Resolves once every queued span's export has settled (sent, or failed by the export's timeout). */
  settled(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
}

/** The conventions' advice for both duration histograms (seconds). */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** Tells `failed` of each failed metrics export. */
class CountingMetricExporter implements PushMetricExporter {
  readonly inner: PushMetricExporter;
  readonly failed: (error: unknown) => void;

  constructor(inner: PushMetricExporter, failed: (error: unknown) => void) {
    this.inner = inner;
    this.failed = failed;
  }

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    this.inner.export(metrics, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.failed(result.error);
      done(result);
    });
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  // The exporter's choice (OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE), cumulative by default.
  selectAggregationTemporality(type: InstrumentType): AggregationTemporality {
    return this.inner.selectAggregationTemporality?.(type) ?? AggregationTemporality.CUMULATIVE;
  }
}

/**
 * The MCP conventions' duration histograms (seconds, the conventions' buckets) on a MeterProvider of their
 * own, exported on the periodic reader's timer: recording one is an in-memory aggregate.
 */
export class DurationHistograms {
  readonly #provider: MeterProvider;
  readonly #client: Histogram;
  readonly #server: Histogram;

  constructor(
    exporter: PushMetricExporter,
    resource: Resource,
    intervalMs: number,
    timeoutMs: number,
    failed: (error: unknown) => void,
  ) {
    this.#provider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new CountingMetricExporter(exporter, failed),
          exportIntervalMillis: intervalMs,
          // The SDK refuses a timeout longer than the interval.
          exportTimeoutMillis: Math.min(timeoutMs, intervalMs),
        }),
      ],
    });
    const meter = this.#provider.getMeter('miniharness');
    const histogram = (name: string, description: string): Histogram =>
      meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
    this.#client = histogram(
      'mcp.client.operation.duration',
      'The duration of the MCP request as observed on the sender from the time it was sent until the response is received.',
    );
    this.#server = histogram(
      'mcp.server.operation.duration',
      'MCP request duration as observed on the receiver from the time it was received until the result is sent.',
    );
  }

  /** One request MiniHarness sent a server (`seconds`). */
  client(seconds: number, attributes: Attributes): void {
    this.#client.record(seconds, attributes);
  }

  /** One request the gateway served (`seconds`). */
  server(seconds: number, attributes: Attributes): void {
    this.#server.record(seconds, attributes);
  }

  flush(): Promise<void> {
    return this.#provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }
}

/** The metric attributes of a span's attributes: the conventions' low-cardinality subset (attributes.ts names them). */
const METRIC_KEYS = [
  'mcp.method.name',
  'gen_ai.tool.name',
  'gen_ai.prompt.name',
  'gen_ai.operation.name',
  'mcp.protocol.version',
  'network.transport',
  'server.address',
  'server.port',
  'error.type',
  'rpc.response.status_code',
];

export function metricAttributes(span: Attributes): Attributes {
  const out: Attributes = {};
  for (const key of METRIC_KEYS) if (span[key] !== undefined) out[key] = span[key];
  return out;
}

/** Where call records are turned into spans and measurements: this thread's tracer (with preset ids) and histograms. */
export interface CallWork {
  tracer: Tracer;
  ids: PresetIds;
  histograms: () => Pick<DurationHistograms, 'client' | 'server'> | undefined;
}

/** Makes each record's span (sampled ones) and records its requests' durations (`mcp.client.operation.duration`). */
export function takeCalls(work: CallWork, records: CallRecord[]): void {
  const histograms = work.histograms();
  for (const record of records) {
    if (histograms && record.requests) measure(histograms, record);
    if (record.span) makeSpan(work, record);
  }
}

function measure(histograms: Pick<DurationHistograms, 'client'>, record: CallRecord): void {
  const base = metricAttributes(record.attributes);
  delete base['error.type'];
  for (const [ms, errorType] of record.requests ?? [])
    histograms.client(ms / 1000, errorType ? { ...base, 'error.type': errorType } : base);
}

/** The call's SDK span with the ids chosen at its start, its parent, times, attributes, events and status. */
function makeSpan(work: CallWork, record: CallRecord): void {
  const parent: Context = record.parent ? trace.setSpanContext(ROOT_CONTEXT, contextOf(record.parent)) : ROOT_CONTEXT;
  const span = work.ids.with(record.traceId, record.spanId, () =>
    work.tracer.startSpan(
      record.name,
      { kind: record.kind, startTime: record.start, attributes: record.attributes },
      parent,
    ),
  );
  for (const [name, attributes, at] of record.events ?? []) span.addEvent(name, attributes, at);
  if (record.attributes['error.type'] !== undefined)
    span.setStatus({
      code: SpanStatusCode.ERROR,
      ...(record.errorMessage !== undefined ? { message: record.errorMessage } : {}),
    });
  span.end(record.end);
}

/** The worker's own call spans and metrics; counts reported back after each change. */
class WorkerCalls {
  readonly #counts: Counts = { exported: 0, failed: 0, dropped: 0 };
  #error: WireError;
  #metricsError: WireError;
  readonly #processor: BoundedBatchProcessor;
  readonly #provider: TracerProvider;
  readonly #work: CallWork;
  #histograms: DurationHistograms | undefined;
  #reportDue = false;

  readonly #port: NonNullable<typeof parentPort>;
  readonly #data: ExportWorkerData;
  readonly #resource: Resource;

  constructor(
    port: NonNullable<typeof parentPort>,
    data: ExportWorkerData,
    exporter: SpanExporter,
    resource: Resource,
  ) {
    this.#port = port;
    this.#data = data;
    this.#resource = resource;
    const counts = this.#counts;
    // Each change is reported once the current turn's work is done (a batch's drops, an export's result).
    const tally: Tally = {
      exported: (count) => void ((counts.exported += count), this.#later()),
      failed: (count, error) => void ((counts.failed += count), (this.#error = errorOf(error)), this.#later()),
      dropped: (count) => void ((counts.dropped += count), this.#later()),
    };
    const ids = new PresetIds();
    this.#processor = new BoundedBatchProcessor(
      exporter,
      tally,
      data.calls?.maxQueueSize ?? 2048,
      data.calls?.scheduledDelayMs ?? 2000,
      data.timeoutMillis,
    );
    // Sampling was decided on the app's thread (only sampled calls come with a span): every record is kept.
    this.#provider = new TracerProvider({
      resource,
      sampler: new AlwaysOnSampler(),
      idGenerator: ids,
      spanProcessors: [this.#processor],
    });
    this.#work = { tracer: this.#provider.getTracer('miniharness'), ids, histograms: () => this.#metrics() };
  }

  take(records: CallRecord[], served: ServedRecord[]): void {
    takeCalls(this.#work, records);
    const histograms = served.length > 0 ? this.#metrics() : undefined;
    for (const [seconds, attributes] of served) histograms?.server(seconds, attributes);
  }

  async flush(): Promise<void> {
    await this.#provider.forceFlush().catch(() => undefined);
    await this.#processor.settled();
    await this.#histograms?.flush().catch(() => undefined);
    this.report();
  }

  async shutdown(): Promise<void> {
    await Promise.all([
      this.#provider.shutdown().catch(() => undefined),
      this.#histograms?.shutdown().catch(() => undefined),
    ]);
    this.report();
  }

  /** Posts what changed since the last report. */
  report(): void {
    const { exported, failed, dropped } = this.#counts;
    if (exported + failed + dropped === 0 && !this.#error && !this.#metricsError) return;
    this.#port.postMessage({
      counts: { exported, failed, dropped },
      ...(this.#error ? { error: this.#error } : {}),
      ...(this.#metricsError ? { metricsError: this.#metricsError } : {}),
    } satisfies ExportWorkerReply);
    Object.assign(this.#counts, { exported: 0, failed: 0, dropped: 0 });
    this.#error = undefined;
    this.#metricsError = undefined;
  }

  #later(): void {
    if (this.#reportDue) return;
    this.#reportDue = true;
    queueMicrotask(() => {
      this.#reportDue = false;
      this.report();
    });
  }

  #metrics(): DurationHistograms | undefined {
    const metrics = this.#data.metrics;
    if (!metrics) return undefined;
    this.#histograms ??= new DurationHistograms(
      metricExporterOf({ ...this.#data, url: metrics.url }),
      this.#resource,
      metrics.intervalMs,
      this.#data.timeoutMillis,
      (error) => {
        this.#metricsError = errorOf(error);
        this.#later();
      },
    );
    return this.#histograms;
  }
}

function serve(port: NonNullable<typeof parentPort>, data: ExportWorkerData): void {
  const exporter = spanExporterOf(data);
  // One resource object for every batch: the transformer groups spans by the resource's identity.
  const resource = resourceFromAttributes(data.resource);
  let calls: WorkerCalls | undefined;
  // Its modules are loaded (the thread's start-up cost, paid once per export configuration).
  port.postMessage({ ready: true } satisfies ExportWorkerReply);
  port.on('message', (message: ExportWorkerRequest) => {
    if ('calls' in message) {
      (calls ??= new WorkerCalls(port, data, exporter, resource)).take(message.calls, message.served);
      return;
    }
    if ('flush' in message) {
      const id = message.flush;
      void (calls?.flush() ?? Promise.resolve()).then(() =>
        port.postMessage({ flushed: id } satisfies ExportWorkerReply),
      );
      return;
    }
    if ('shutdown' in message) {
      void (calls?.shutdown() ?? Promise.resolve())
        .then(() => exporter.shutdown())
        .catch(() => undefined)
        .then(() => {
          port.postMessage({ shutdownDone: true } satisfies ExportWorkerReply);
          port.close();
        });
      return;
    }
    exportPlain(port, exporter, resource, message);
  });
}

/** A batch of the app's own spans (plain records), exported; the result posted back. */
function exportPlain(
  port: NonNullable<typeof parentPort>,
  exporter: SpanExporter,
  resource: Resource,
  message: { export: number; spans: PlainSpan[] },
): void {
  const id = message.export;
  try {
    const spans = message.spans.map((plain) => readableOf(plain, resource));
    exporter.export(spans, (result: ExportResult) =>
      port.postMessage({
        settled: id,
        ok: result.code === ExportResultCode.SUCCESS,
        error: errorOf(result.error),
      } satisfies ExportWorkerReply),
    );
  } catch (error) {
    port.postMessage({ settled: id, ok: false, error: errorOf(error) } satisfies ExportWorkerReply);
  }
}

// Only as the export worker (the app's thread imports this module for the work it shares).
if (parentPort && (workerData as Partial<ExportWorkerData> | null)?.otlpExportWorker === true)
  serve(parentPort, workerData as ExportWorkerData);
