/**
 * OpenTelemetry export, as the app uses it: on or off (off by default), one export pipeline at a
 * time (exportPipeline.ts) behind the call spans (callSpans.ts, on the app's Tracer), the
 * gateway's request spans (requestSpans.ts) and the runs' GenAI spans (runSpans.ts). Turning it
 * off detaches everything: the call path then pays one `undefined` check per trace.
 */
import { SpanKind } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import type { TraceSummary } from '../../shared/traces.js';
import type { Tracer } from '../tracing/tracer.js';
import { settledWithin } from '../util/settledWithin.js';
import type { ServerDescription } from './callSpans.js';
import { CallSpans } from './callSpans.js';
import type { ExportConfig, ExportStats } from './exportPipeline.js';
import { ExportPipeline, createExporter, describeExportError } from './exportPipeline.js';
import { RequestSpans } from './requestSpans.js';
import { RunSpans } from './runSpans.js';

type Recorded = { args: unknown; result?: unknown };
type Payloads = { arguments?: string; result?: string };

export interface TelemetryOptions {
  /** The app's call tracer: each call trace becomes a span. */
  tracer: Tracer;
  localServerId: string;
  describeServer: (serverId: string) => ServerDescription | undefined;
  /** The app's redaction of text (URIs on the gateway's spans). */
  redactText: (text: string) => string;
  /**
   * A call's stored arguments and result (already redacted), for the opt-in payload attributes: at once
   * (SQLite) or later (PostgreSQL) — read after the call returned, in the spans' idle batch.
   */
  recorded: (sessionId: string, callId: string) => Recorded | undefined | Promise<Recorded | undefined>;
  /** Redacts a payload the same way traces are. */
  redact: (value: unknown) => unknown;
  /** For tests: the exporter to use instead of the OTLP one. */
  exporterFor?: (config: ExportConfig) => SpanExporter;
  /**
   * For the benchmark: the metrics exporter to use instead of the OTLP one, when the metrics are made on
   * this thread (the spans' exporter is not the export worker); undefined: the OTLP one.
   */
  metricExporterFor?: (config: ExportConfig) => PushMetricExporter | undefined;
}

export interface TelemetryConfig extends ExportConfig {
  /** Opt-in: `gen_ai.tool.call.arguments` / `.result`, redacted and capped at `payloadMaxChars`. */
  exportPayloads: boolean;
  payloadMaxChars?: number;
}

export interface TestSpanAnswer {
  ok: boolean;
  /** What the collector answered, in words (status and a short body; never a header value). */
  message: string;
  traceId: string;
}

const DEFAULT_PAYLOAD_MAX_CHARS = 4096;
const TEST_SPAN_TIMEOUT_MS = 2000;
/** How long closing waits for the last exports (a hung collector is abandoned after it). */
const CLOSE_WAIT_MS = 2000;
/** How many MiniHarness trace ids keep their exported trace id (the Traces view's link). */
const MAX_LINKS = 5000;

export class Telemetry {
  readonly requests: RequestSpans;
  readonly runs: RunSpans;
  #pipeline: ExportPipeline | undefined;
  #calls: CallSpans | undefined;
  /** MiniHarness trace id → the exported trace id (the Traces view shows it and links to the viewer). */
  #links = new Map<string, string>();
  /** The generation before `#links` (two generations: dropping the oldest half is one swap, not a scan). */
  #olderLinks = new Map<string, string>();
  /** Counters of the pipelines replaced since start (the Settings view shows the sum). */
  readonly #retired: ExportStats[] = [];
  /** The replaced pipelines' shutdowns still under way. */
  readonly #retiring = new Set<Promise<void>>();

  constructor(private readonly options: TelemetryOptions) {
    this.requests = new RequestSpans(
      () => this.#pipeline?.tracer,
      options.redactText,
      () => (this.#pipeline?.measured ? this.#pipeline : undefined),
    );
    this.runs = new RunSpans(() => this.#pipeline?.tracer);
  }

  get enabled(): boolean {
    return this.#pipeline !== undefined;
  }

  /** Starts exporting with this configuration (replacing the one before), or stops (undefined). */
  async configure(config: TelemetryConfig | undefined): Promise<void> {
    const before = this.#pipeline;
    // Calls that ended under the old settings go out with them (once their payloads, if any, are read).
    const drained = this.#calls?.drain();
    this.#pipeline = undefined;
    this.#calls = undefined;
    this.options.tracer.observer = undefined;
    if (before) {
      // Its counters stay live (an export in flight still settles) and are summed; its shutdown is not waited
      // for — a hung collector would otherwise hold up the Settings change until the export's timeout.
      this.#retired.push(before.stats);
      const retiring = settledWithin(drained, CLOSE_WAIT_MS).then(() => before.shutdown());
      this.#retiring.add(retiring);
      void retiring.finally(() => this.#retiring.delete(retiring));
    }
    if (!config) return;
    const pipeline = new ExportPipeline(
      config,
      this.options.exporterFor?.(config) ?? createExporter(config),
      config.exportMetrics ? this.options.metricExporterFor?.(config) : undefined,
    );
    const calls = new CallSpans({
      send: (records) => pipeline.calls(records),
      measured: pipeline.measured,
      ids: pipeline.ids,
      sampleRatio: config.sampleRatio,
      dropped: (count) => void (pipeline.stats.dropped += count),
      describeServer: this.options.describeServer,
      localServerId: this.options.localServerId,
      linked: (traceId, external) => this.#link(traceId, external),
      payloads: config.exportPayloads
        ? (trace) => this.#payloads(trace, config.payloadMaxChars ?? DEFAULT_PAYLOAD_MAX_CHARS)
        : undefined,
    });
    this.#pipeline = pipeline;
    this.#calls = calls;
    this.options.tracer.observer = calls;
  }

  /**
   * Resolves once the current export can send (its worker thread has started) and the exports it replaced
   * have stopped (each within its bound): the benchmark times calls after a configuration's one-off work.
   */
  async ready(): Promise<void> {
    await Promise.all([this.#pipeline?.ready(), ...this.#retiring]);
  }

  /** The counters since the app started (every configuration's). */
  stats(): ExportStats {
    const all = [...this.#retired, ...(this.#pipeline ? [this.#pipeline.stats] : [])];
    const sum = (key: 'exported' | 'dropped' | 'failed'): number => all.reduce((n, stats) => n + stats[key], 0);
    return {
      exported: sum('exported'),
      dropped: sum('dropped'),
      failed: sum('failed'),
      lastError: all.findLast((stats) => stats.lastError !== undefined)?.lastError,
    };
  }

  /** The exported trace id of a MiniHarness trace, while it is remembered. */
  externalTraceId(traceId: string): string | undefined {
    return this.#links.get(traceId) ?? this.#olderLinks.get(traceId);
  }

  /** Exports what is queued now (tests; closing). */
  async flush(): Promise<void> {
    await this.#calls?.drain();
    // A failed export is already counted; flushing never throws.
    await this.#pipeline?.flush().catch(() => undefined);
  }

  /**
   * Stops exporting; what is queued is sent first. Bounded (CLOSE_WAIT_MS): a collector that hangs is not
   * waited for — the export worker is stopped and what it had counts as failed.
   */
  async close(): Promise<void> {
    const last = this.#pipeline;
    await settledWithin(this.#calls?.drain(), CLOSE_WAIT_MS);
    await this.configure(undefined);
    await last?.shutdown(CLOSE_WAIT_MS);
  }

  /** Sends one span straight to the collector of `config` and says what it answered. */
  async testSpan(config: ExportConfig): Promise<TestSpanAnswer> {
    // The person waits for this answer: a collector that is away or hangs is reported within a few seconds.
    const quick = { ...config, exportTimeoutMs: TEST_SPAN_TIMEOUT_MS };
    const exporter = this.options.exporterFor?.(quick) ?? createExporter(quick);
    let ended: ReadableSpan | undefined;
    const capture: SpanProcessor = {
      onStart: () => undefined,
      onEnd: (span) => void (ended = span),
      forceFlush: () => Promise.resolve(),
      shutdown: () => Promise.resolve(),
    };
    const provider = new TracerProvider({ spanProcessors: [capture] });
    const span = provider.getTracer('miniharness').startSpan('miniharness test span', { kind: SpanKind.INTERNAL });
    span.setAttribute('miniharness.test', true);
    const traceId = span.spanContext().traceId;
    span.end();
    const sent = ended;
    try {
      if (!sent) return { ok: false, message: 'The test span could not be made.', traceId };
      const result = await new Promise<{ code: ExportResultCode; error?: Error }>((resolve) =>
        exporter.export([sent], resolve),
      );
      if (result.code === ExportResultCode.SUCCESS)
        return { ok: true, message: `The collector accepted the test span (trace ${traceId}).`, traceId };
      return {
        ok: false,
        message: `The collector did not take the test span: ${describeExportError(result.error)}.`,
        traceId,
      };
    } finally {
      await exporter.shutdown().catch(() => undefined);
      await provider.shutdown().catch(() => undefined);
    }
  }

  #link(traceId: string, external: string): void {
    this.#links.set(traceId, external);
    // Bounded: the last MAX_LINKS to 2 × MAX_LINKS calls are remembered. (Deleting the oldest entry of one map
    // per call made V8 skip ever more deleted slots to find it: about 4 µs a call.)
    if (this.#links.size < MAX_LINKS) return;
    this.#olderLinks = this.#links;
    this.#links = new Map();
  }

  #payloads(trace: TraceSummary, maxChars: number): Payloads | undefined | Promise<Payloads | undefined> {
    const cap = (value: unknown): string => {
      const text = JSON.stringify(this.options.redact(value)) ?? 'null';
      return text.length > maxChars ? `${text.slice(0, maxChars)}…(truncated)` : text;
    };
    const payloads = (record: Recorded | undefined): Payloads | undefined =>
      record && {
        arguments: cap(record.args),
        ...(record.result !== undefined ? { result: cap(record.result) } : {}),
      };
    const record = this.options.recorded(trace.sessionId, trace.callId);
    return record instanceof Promise ? record.then(payloads) : payloads(record);
  }
}
