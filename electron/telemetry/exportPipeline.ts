/**
 * The OpenTelemetry export itself: a tracer provider whose spans go, in batches, to an OTLP/HTTP
 * collector (protobuf or JSON, the official exporters), through a bounded queue; and the calls'
 * spans and the MCP metrics, handed to the export worker as plain records (exportWorker.ts) — or
 * made here when there is no worker (it could not start; the benchmark's in-memory exporters).
 *
 * Off the call path: a span ends in constant time (queued, or dropped and counted when the queue
 * is full); exports run on the batch processor's timer. A collector that is down, slow or answers
 * 500 costs the spans of that batch (counted as failed), never a call.
 */
import type { Attributes, Tracer } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { settledWithin } from '../util/settledWithin.js';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from './attributes.js';
import type { CallRecord, DurationHistograms, ServedRecord, Tally } from './exportWorker.js';
import { BoundedBatchProcessor, PresetIds, spanExporterOf, takeCalls } from './exportWorker.js';
import { localMetrics } from './metrics.js';
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
  /** The MCP duration metrics to the same collector (made in the export worker). */
  exportMetrics?: boolean;
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

/** The official exporter's options for a configuration (the env variables fill in what the settings leave out). */
function exporterOptions(config: ExportConfig) {
  return {
    protocol: config.protocol,
    url: config.url,
    headers: { ...config.headers },
    timeoutMillis: config.exportTimeoutMs ?? 10_000,
  };
}

/** The batch processor's delay: OTEL_BSP_SCHEDULE_DELAY, the standard variable, when set; else 2 s. */
function scheduledDelay(config: ExportConfig): number {
  return config.scheduledDelayMs ?? (Number(process.env.OTEL_BSP_SCHEDULE_DELAY) || 2000);
}

/**
 * The exporter for a protocol: the official OTLP exporter, run in a worker thread (workerExporter.ts) so its
 * serialisation, HTTP, retries and timeouts stay off the calls' event loop — with the calls' spans and the
 * metrics made there too (exportWorker.ts).
 */
export function createExporter(config: ExportConfig): SpanExporter {
  return new WorkerSpanExporter(
    {
      ...exporterOptions(config),
      otlpExportWorker: true,
      resource: resourceAttributes(config),
      calls: { maxQueueSize: config.maxQueueSize ?? DEFAULT_MAX_QUEUE, scheduledDelayMs: scheduledDelay(config) },
      metrics: config.exportMetrics
        ? {
            url: config.metricsUrl,
            // OTEL_METRIC_EXPORT_INTERVAL, the standard variable, when set; else a minute (the SDK's default).
            intervalMs: config.metricIntervalMs ?? (Number(process.env.OTEL_METRIC_EXPORT_INTERVAL) || 60_000),
          }
        : undefined,
    },
    () => spanExporterOf(exporterOptions(config)),
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

type Histograms = Pick<DurationHistograms, 'client' | 'server' | 'flush' | 'shutdown'>;

/** How long served requests' durations wait to be posted to the worker with others (one message per interval). */
const SERVED_DELAY_MS = 100;

/** One configured export: its provider, tracer and counters. Replaced as a whole when the settings change. */
export class ExportPipeline {
  readonly stats: ExportStats = { exported: 0, dropped: 0, failed: 0, lastError: undefined };
  readonly tracer: Tracer;
  /** The ids of spans decided before they are made (callSpans.ts). */
  readonly ids = new PresetIds();
  /** The MCP duration metrics are recorded (the settings turned them on). */
  readonly measured: boolean;
  readonly #provider: TracerProvider;
  readonly #worker: WorkerSpanExporter | undefined;
  readonly #processor: BoundedBatchProcessor;
  /** The metrics made on this thread, when the worker does not take them (made at the first record). */
  #histograms: Histograms | undefined;
  #served: ServedRecord[] = [];
  #servedTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: ExportConfig,
    exporter: SpanExporter = createExporter(config),
    /** For tests and the benchmark: the metrics exporter when the metrics are made on this thread. */
    private readonly metricExporter?: PushMetricExporter,
  ) {
    this.measured = config.exportMetrics === true;
    const stats = this.stats;
    const tally: Tally = {
      exported: (count) => void (stats.exported += count),
      failed: (count, error) => {
        stats.failed += count;
        stats.lastError = describeExportError(error);
      },
      dropped: (count) => void (stats.dropped += count),
    };
    this.#processor = new BoundedBatchProcessor(
      exporter,
      tally,
      config.maxQueueSize ?? DEFAULT_MAX_QUEUE,
      scheduledDelay(config),
      config.exportTimeoutMs ?? 10_000,
    );
    this.#provider = new TracerProvider({
      resource: resourceFromAttributes(resourceAttributes(config)),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
      idGenerator: this.ids,
      spanProcessors: [this.#processor],
    });
    this.tracer = this.#provider.getTracer('miniharness');
    this.#worker = exporter instanceof WorkerSpanExporter ? exporter : undefined;
    if (this.#worker)
      this.#worker.counted = (counts, error, metricsError) => {
        tally.exported(counts.exported);
        if (counts.failed > 0 || error) tally.failed(counts.failed, error);
        tally.dropped(counts.dropped);
        if (metricsError) stats.lastError = `metrics: ${describeExportError(metricsError)}`;
      };
  }

  /** Resolves once the exporter can send (its worker thread started: benchmarks time calls after it). */
  ready(): Promise<void> {
    return this.#worker ? this.#worker.ready : Promise.resolve();
  }

  /**
   * Ended calls (plain, redacted records): handed to the export worker, which makes their spans and records
   * their metrics; made here when there is no worker to take them.
   */
  calls(records: CallRecord[]): void {
    if (records.length === 0) return;
    if (this.#worker?.post(records, this.#takeServed())) return;
    takeCalls({ tracer: this.tracer, ids: this.ids, histograms: () => this.#localHistograms() }, records);
  }

  /** One request the gateway served (`mcp.server.operation.duration`), posted with others. */
  server(seconds: number, attributes: Attributes): void {
    if (!this.measured) return;
    if (!this.#worker) return this.#localHistograms()?.server(seconds, attributes);
    this.#served.push([seconds, attributes]);
    // Unref'd: a pending record never holds the process open (flush and shutdown post it).
    this.#servedTimer ??= setTimeout(() => this.#postServed(), SERVED_DELAY_MS).unref();
  }

  /** Exports every queued span now and waits until each export settled (tests; closing). */
  async flush(): Promise<void> {
    this.#postServed();
    // The batch processor's own timeout may give up first (the worker's timer starts when its message
    // arrives): its rejection is no answer — the export worker's is, counted when it comes.
    await this.#provider.forceFlush().catch(() => undefined);
    await this.#processor.settled();
    await this.#worker?.flushCalls();
    await this.#histograms?.flush().catch(() => undefined);
  }

  /**
   * Sends what is queued and stops. Bounded: after `waitMs` an export still out (a collector that hangs) is
   * abandoned — the worker is stopped, its spans count as failed — so closing never waits for a collector.
   */
  async shutdown(waitMs = SHUTDOWN_WAIT_MS): Promise<void> {
    this.#postServed();
    await settledWithin(Promise.all([this.#provider.shutdown(), this.#histograms?.shutdown()]), waitMs);
    if (this.#worker) await this.#worker.terminate();
  }

  #takeServed(): ServedRecord[] {
    clearTimeout(this.#servedTimer);
    this.#servedTimer = undefined;
    const served = this.#served;
    this.#served = [];
    return served;
  }

  #postServed(): void {
    const served = this.#takeServed();
    if (served.length > 0 && !this.#worker?.post([], served)) {
      const here = this.#localHistograms();
      for (const [seconds, attributes] of served) here?.server(seconds, attributes);
    }
  }

  /** The metrics on this thread (no worker, or it broke), made at the first record; none when turned off. */
  #localHistograms(): Histograms | undefined {
    if (!this.measured) return undefined;
    this.#histograms ??= localMetrics(this.config, this.metricExporter, (error) => {
      this.stats.lastError = `metrics: ${describeExportError(error)}`;
    });
    return this.#histograms;
  }
}
