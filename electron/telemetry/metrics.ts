/**
 * The MCP conventions' metrics (semantic-conventions-genai, model/mcp/metrics.yaml):
 * `mcp.client.operation.duration` — each request MiniHarness sent a server for a call (one per
 * attempt), as the sender saw it — and `mcp.server.operation.duration` — each request the gateway
 * served an agent. Histograms in seconds with the conventions' bucket boundaries, sent by the
 * official metrics SDK and OTLP exporter to the same collector (endpoint, headers, protocol) as
 * the spans, on the periodic reader's timer: recording one is an in-memory aggregate, nothing on the wire.
 *
 * Their attributes are the low-cardinality ones the conventions list (method, tool or prompt name,
 * protocol version, transport, server address, error type) — never ids, sessions or payloads.
 */
import type { Attributes, Histogram } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import type { ExportResult } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { InstrumentType, PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import * as A from './attributes.js';
import type { ExportConfig, ExportStats } from './exportPipeline.js';
import { describeExportError } from './exportPipeline.js';

/** The conventions' advice for both histograms (seconds). */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const DEFAULT_INTERVAL_MS = 60_000;

/** The metrics exporter for a protocol; the `OTEL_EXPORTER_OTLP_(METRICS_)*` variables fill in what the settings leave out. */
export function createMetricExporter(config: ExportConfig): PushMetricExporter {
  const options = {
    ...(config.metricsUrl ? { url: config.metricsUrl } : {}),
    ...(Object.keys(config.headers).length > 0 ? { headers: { ...config.headers } } : {}),
    timeoutMillis: config.exportTimeoutMs ?? 10_000,
  };
  return config.protocol === 'http/json' ? new JsonMetricExporter(options) : new ProtoMetricExporter(options);
}

/** Counts failed metric exports into the pipeline's counters (the last error is shown in Settings). */
class CountingMetricExporter implements PushMetricExporter {
  constructor(
    private readonly inner: PushMetricExporter,
    private readonly stats: ExportStats,
  ) {}

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    this.inner.export(metrics, (result) => {
      if (result.code !== ExportResultCode.SUCCESS)
        this.stats.lastError = `metrics: ${describeExportError(result.error)}`;
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

export class McpMetrics {
  readonly #provider: MeterProvider;
  readonly #client: Histogram;
  readonly #server: Histogram;

  constructor(config: ExportConfig, stats: ExportStats, exporter: PushMetricExporter = createMetricExporter(config)) {
    // OTEL_METRIC_EXPORT_INTERVAL, the standard variable, when set; else a minute (the SDK's default).
    const interval =
      config.metricIntervalMs ?? (Number(process.env.OTEL_METRIC_EXPORT_INTERVAL) || DEFAULT_INTERVAL_MS);
    this.#provider = new MeterProvider({
      resource: resourceFromAttributes({
        [A.ATTR_SERVICE_NAME]: config.serviceName,
        [A.ATTR_SERVICE_VERSION]: config.serviceVersion,
      }),
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new CountingMetricExporter(exporter, stats),
          exportIntervalMillis: interval,
          // The SDK refuses a timeout longer than the interval.
          exportTimeoutMillis: Math.min(config.exportTimeoutMs ?? 10_000, interval),
        }),
      ],
    });
    const meter = this.#provider.getMeter('miniharness');
    const histogram = (name: string, description: string): Histogram =>
      meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
    this.#client = histogram(
      A.METRIC_MCP_CLIENT_OPERATION_DURATION,
      'The duration of the MCP request as observed on the sender from the time it was sent until the response is received.',
    );
    this.#server = histogram(
      A.METRIC_MCP_SERVER_OPERATION_DURATION,
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

  /** Exports what was recorded now (tests; closing). */
  flush(): Promise<void> {
    return this.#provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }
}

/** The metric attributes of a span's attributes: the conventions' low-cardinality subset. */
export function metricAttributes(span: Attributes): Attributes {
  const out: Attributes = {};
  for (const key of METRIC_KEYS) if (span[key] !== undefined) out[key] = span[key];
  return out;
}

const METRIC_KEYS = [
  A.MCP_METHOD_NAME,
  A.GEN_AI_TOOL_NAME,
  A.GEN_AI_PROMPT_NAME,
  A.GEN_AI_OPERATION_NAME,
  A.MCP_PROTOCOL_VERSION,
  A.ATTR_NETWORK_TRANSPORT,
  A.ATTR_SERVER_ADDRESS,
  A.ATTR_SERVER_PORT,
  A.ATTR_ERROR_TYPE,
  A.RPC_RESPONSE_STATUS_CODE,
];
