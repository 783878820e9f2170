/**
 * The OTLP span export's worker thread (exportPipeline.ts, `WorkerSpanExporter`): the official
 * OTLP/HTTP exporter (protobuf or JSON) runs here — serialisation, the HTTP request, its retries
 * and timeout — so none of it runs on the event loop of the calls. The app's thread posts each
 * batch the SDK's batch processor made as plain span records (`PlainSpan`); this thread turns them
 * back into what the exporter reads of a span and answers each batch with the exporter's result.
 *
 * A module of its own, built like the WAL checkpointer's worker (electron.vite.config.ts emits it
 * beside the main bundle); from the sources (tests, tsx) Node runs this file with its built-in type
 * stripping, so it uses only erasable TypeScript and imports nothing of ours.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Attributes, HrTime, Link, SpanContext, SpanKind, SpanStatus } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode, TraceState } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace';

/** What the app's thread hands the worker: the exporter's options and the pipeline's resource. */
export interface ExportWorkerData {
  protocol: 'http/protobuf' | 'http/json';
  /** Undefined: the `OTEL_EXPORTER_OTLP_*` variables (the worker shares the process's environment). */
  url: string | undefined;
  headers: Record<string, string>;
  timeoutMillis: number;
  resource: Attributes;
}

/** A span context without methods: the trace state as its W3C header text. */
interface PlainContext {
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

export type ExportWorkerRequest = { export: number; spans: PlainSpan[] } | { shutdown: true };

export type ExportWorkerReply =
  | { settled: number; ok: boolean; error?: { code?: number; data?: string; message?: string } | undefined }
  | { shutdownDone: true }
  | { ready: true };

function contextOf(plain: PlainContext): SpanContext {
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
function errorOf(error: unknown): { code?: number; data?: string; message?: string } | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const { code, data, message } = error as { code?: unknown; data?: unknown; message?: unknown };
  return {
    ...(typeof code === 'number' ? { code } : {}),
    ...(typeof data === 'string' ? { data } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}

function serve(port: NonNullable<typeof parentPort>, data: ExportWorkerData): void {
  const options = {
    ...(data.url ? { url: data.url } : {}),
    ...(Object.keys(data.headers).length > 0 ? { headers: data.headers } : {}),
    timeoutMillis: data.timeoutMillis,
  };
  const exporter: SpanExporter = data.protocol === 'http/json' ? new JsonExporter(options) : new ProtoExporter(options);
  // One resource object for every batch: the transformer groups spans by the resource's identity.
  const resource = resourceFromAttributes(data.resource);
  // Its modules are loaded (the thread's start-up cost, paid once per export configuration).
  port.postMessage({ ready: true } satisfies ExportWorkerReply);
  port.on('message', (message: ExportWorkerRequest) => {
    if ('shutdown' in message) {
      void exporter
        .shutdown()
        .catch(() => undefined)
        .then(() => {
          port.postMessage({ shutdownDone: true } satisfies ExportWorkerReply);
          port.close();
        });
      return;
    }
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
  });
}

if (parentPort) serve(parentPort, workerData as ExportWorkerData);
