/**
 * The MCP conventions' metrics (semantic-conventions-genai, model/mcp/metrics.yaml):
 * `mcp.client.operation.duration` — each request MiniHarness sent a server for a call (one per
 * attempt), as the sender saw it — and `mcp.server.operation.duration` — each request the gateway
 * served an agent. Histograms in seconds with the conventions' bucket boundaries, sent by the
 * official metrics SDK and OTLP exporter to the same collector (endpoint, headers, protocol) as
 * the spans, on the periodic reader's timer: recording one is an in-memory aggregate, nothing on the wire.
 * They are recorded in the export worker (exportWorker.ts `DurationHistograms`); on this thread only
 * when there is no worker (localMetrics below).
 *
 * Their attributes are the low-cardinality ones the conventions list (method, tool or prompt name,
 * protocol version, transport, server address, error type) — never ids, sessions or payloads.
 */
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import * as A from './attributes.js';
import type { ExportConfig } from './exportPipeline.js';
import { DurationHistograms, metricExporterOf } from './exportWorker.js';

export { metricAttributes } from './exportWorker.js';

const DEFAULT_INTERVAL_MS = 60_000;

/** The metrics exporter for a configuration; the `OTEL_EXPORTER_OTLP_(METRICS_)*` variables fill in what the settings leave out. */
function createMetricExporter(config: ExportConfig): PushMetricExporter {
  return metricExporterOf({
    protocol: config.protocol,
    url: config.metricsUrl,
    headers: config.headers,
    timeoutMillis: config.exportTimeoutMs ?? 10_000,
  });
}

/** The histograms on this thread (no export worker): `failed` is told of each failed metrics export. */
export function localMetrics(
  config: ExportConfig,
  exporter: PushMetricExporter = createMetricExporter(config),
  failed: (error: unknown) => void,
): DurationHistograms {
  // OTEL_METRIC_EXPORT_INTERVAL, the standard variable, when set; else a minute (the SDK's default).
  const interval = config.metricIntervalMs ?? (Number(process.env.OTEL_METRIC_EXPORT_INTERVAL) || DEFAULT_INTERVAL_MS);
  return new DurationHistograms(
    exporter,
    resourceFromAttributes({
      [A.ATTR_SERVICE_NAME]: config.serviceName,
      [A.ATTR_SERVICE_VERSION]: config.serviceVersion,
    }),
    interval,
    config.exportTimeoutMs ?? 10_000,
    failed,
  );
}
