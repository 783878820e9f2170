/**
 * The OpenTelemetry export itself: a tracer provider whose spans go, in batches, to an OTLP/HTTP
 * collector (protobuf or JSON, the official exporters), through a bounded queue.
 *
 * Off the call path: a span ends in constant time (queued, or dropped and counted when the queue
 * is full); exports run on the batch processor's timer. A collector that is down, slow or answers
 * 500 costs the spans of that batch (counted as failed), never a call.
 */
import type { Attributes, Context, Tracer } from '@opentelemetry/api';
import { TraceFlags } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { settledWithin } from '../util/settledWithin.js';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from './attributes.js';
import { PresetIds } from './presetIds.js';
import { WorkerSpanExporter } from './workerExporter.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface ExportConfig {
  protocol: OtlpProtocol;
  /** The collector's traces URL; undefined: the `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT` variables (else localhost:4318). */
  url: string | undefined;
  /** Headers sent with each export (values may be secrets: they never leave this module). */
  headers: Record<string, string>;
  /** The collector's metrics URL; undefined: the `OTEL_EXPORTER_OTLP_(METRICS_)ENDPOINT` variables (else localhost:4318). */
  metricsUrl?: string | undefined;
  /** The metrics reader's delay between exports (default OTEL_METRIC_EXPORT_INTERVAL, else 60 s). */
  metricIntervalMs?: number;
  serviceName: string;
  serviceVersion: string;
  /** The share of new traces kept, 0–1; a trace continued from an agent follows the agent's sampled flag. */
  sampleRatio: number;
  /** How many ended spans may wait for export; more are dropped (counted). */
  maxQueueSize?: number;
  /** How long one export may take before it counts as failed. */
  exportTimeoutMs?: number;
  /** The batch processor's delay between exports. */
  scheduledDelayMs?: number;
}

export interface ExportStats {
  /** Spans the collector accepted. */
  exported: number;
  /** Spans dropped because the queue was full (the collector too slow or down). */
  dropped: number;
  /** Spans whose export failed (the collector answered an error, hung, or was unreachable). */
  failed: number;
  /** The last failure, as the exporter said it (status and a short reason; no header values). */
  lastError: string | undefined;
}

const DEFAULT_MAX_QUEUE = 2048;

/** The official exporter for a protocol on this thread; the env variables fill in what the settings leave out. */
function inThreadExporter(config: ExportConfig): SpanExporter {
  const options = {
    ...(config.url ? { url: config.url } : {}),
    ...(Object.keys(config.headers).length > 0 ? { headers: { ...config.headers } } : {}),
    timeoutMillis: config.exportTimeoutMs ?? 10_000,
  };
  return config.protocol === 'http/json' ? new JsonExporter(options) : new ProtoExporter(options);
}

/**
 * The exporter for a protocol: the official OTLP exporter, run in a worker thread (workerExporter.ts) so its
 * serialisation, HTTP, retries and timeouts stay off the calls' event loop.
 */
export function createExporter(config: ExportConfig): SpanExporter {
  return new WorkerSpanExporter(
    {
      protocol: config.protocol,
      url: config.url,
      headers: { ...config.headers },
      timeoutMillis: config.exportTimeoutMs ?? 10_000,
      resource: resourceAttributes(config),
    },
    () => inThreadExporter(config),
  );
}

function resourceAttributes(config: ExportConfig): Attributes {
  return { [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: config.serviceVersion };
}

/** How long shutting a pipeline down waits for its last export before stopping it (a hung collector is not waited for). */
const SHUTDOWN_WAIT_MS = 2000;

/** How much of a collector's error body is kept (in memory) before it is redacted and cut for the window. */
const EXPORT_ERROR_MAX_CHARS = 16_384;

/**
 * What an exporter's failure says, without its request (headers): the HTTP status and the body, bounded
 * generously. It is cut short for the window only after redaction (ObservabilityService): a cut made first
 * could split an echoed header value so that redaction no longer finds it.
 */
export function describeExportError(error: unknown): string {
  if (!error || typeof error !== 'object') return 'the export failed';
  const { code, data, message } = error as { code?: unknown; data?: unknown; message?: unknown };
  const status = typeof code === 'number' ? `HTTP ${code}` : undefined;
  const body = typeof data === 'string' && data.length > 0 ? data.slice(0, EXPORT_ERROR_MAX_CHARS) : undefined;
  const text = typeof message === 'string' ? message.slice(0, EXPORT_ERROR_MAX_CHARS) : 'the export failed';
  return [status, body ?? text].filter(Boolean).join(': ');
}

/** Counts what the wrapped exporter sent and what failed. */
class CountingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly stats: ExportStats,
    private readonly settled: (count: number) => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.stats.exported += spans.length;
      else {
        this.stats.failed += spans.length;
        this.stats.lastError = describeExportError(result.error);
      }
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
class BoundedBatchProcessor implements SpanProcessor {
  #pending = 0;
  readonly #idle: Array<() => void> = [];
  readonly #batch: BatchSpanProcessor;

  constructor(
    exporter: SpanExporter,
    private readonly stats: ExportStats,
    private readonly maxQueue: number,
    scheduledDelayMs: number,
    exportTimeoutMs: number,
  ) {
    const counting = new CountingExporter(exporter, stats, (count) => {
      this.#pending = Math.max(0, this.#pending - count);
      if (this.#pending === 0) for (const resolve of this.#idle.splice(0)) resolve();
    });
    this.#batch = new BatchSpanProcessor({
      exporter: counting,
      maxQueueSize: maxQueue,
      maxExportBatchSize: Math.min(512, maxQueue),
      scheduledDelayMillis: scheduledDelayMs,
      // A safety net only: the exporter's own timeout (in the worker, from when the batch reaches it) answers first.
      exportTimeoutMillis: exportTimeoutMs + 5000,
    });
  }

  onStart(span: Span, parentContext: Context): void {
    this.#batch.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.#pending >= this.maxQueue) {
      this.stats.dropped++;
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

/** One configured export: its provider, tracer and counters. Replaced as a whole when the settings change. */
export class ExportPipeline {
  readonly stats: ExportStats = { exported: 0, dropped: 0, failed: 0, lastError: undefined };
  readonly tracer: Tracer;
  /** The ids of spans decided before they are made (callSpans.ts). */
  readonly ids = new PresetIds();
  readonly #provider: TracerProvider;
  readonly #exporter: SpanExporter;
  #processor: BoundedBatchProcessor | undefined;

  constructor(config: ExportConfig, exporter: SpanExporter = createExporter(config)) {
    this.#exporter = exporter;
    const exportTimeoutMs = config.exportTimeoutMs ?? 10_000;
    this.#provider = new TracerProvider({
      resource: resourceFromAttributes(resourceAttributes(config)),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
      idGenerator: this.ids,
      spanProcessors: [
        (this.#processor = new BoundedBatchProcessor(
          exporter,
          this.stats,
          config.maxQueueSize ?? DEFAULT_MAX_QUEUE,
          // OTEL_BSP_SCHEDULE_DELAY, the standard variable, when set; else 2 s.
          config.scheduledDelayMs ?? (Number(process.env.OTEL_BSP_SCHEDULE_DELAY) || 2000),
          exportTimeoutMs,
        )),
      ],
    });
    this.tracer = this.#provider.getTracer('miniharness');
  }

  /** Resolves once the exporter can send (its worker thread started: benchmarks time calls after it). */
  ready(): Promise<void> {
    return this.#exporter instanceof WorkerSpanExporter ? this.#exporter.ready : Promise.resolve();
  }

  /** Exports every queued span now and waits until each export settled (tests; closing). */
  async flush(): Promise<void> {
    // The batch processor's own timeout may give up first (the worker's timer starts when its message
    // arrives): its rejection is no answer — the export worker's is, counted when it comes.
    await this.#provider.forceFlush().catch(() => undefined);
    await this.#processor?.settled();
  }

  /**
   * Sends what is queued and stops. Bounded: after `waitMs` an export still out (a collector that hangs) is
   * abandoned — the worker is stopped, its spans count as failed — so closing never waits for a collector.
   */
  async shutdown(waitMs = SHUTDOWN_WAIT_MS): Promise<void> {
    await settledWithin(this.#provider.shutdown(), waitMs);
    if (this.#exporter instanceof WorkerSpanExporter) await this.#exporter.terminate();
  }
}
