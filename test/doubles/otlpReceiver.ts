/**
 * A loopback OTLP/HTTP receiver (a collector stand-in): decodes what the exporters send —
 * OTLP/JSON, and OTLP/protobuf with the opentelemetry-proto definitions (the subset below, field
 * numbers as in opentelemetry/proto/trace/v1/trace.proto, metrics/v1/metrics.proto and
 * common/v1/common.proto) read by protobufjs — into flat spans (`/v1/traces`) and histogram points
 * (`/v1/metrics`) a test can check. It can answer 500, or hang, on demand.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

const PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; repeated Event events = 11; Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; }
}
message ArrayValue { repeated AnyValue values = 1; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
message ScopeMetrics { repeated Metric metrics = 2; }
message Metric { string name = 1; string description = 2; string unit = 3; Histogram histogram = 9; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message HistogramDataPoint {
  fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3; fixed64 count = 4; double sum = 5;
  repeated fixed64 bucket_counts = 6; repeated double explicit_bounds = 7; repeated KeyValue attributes = 9;
}
`;
const root = protobuf.parse(PROTO, { keepCase: false }).root;
const Request = root.lookupType('otlp.ExportTraceServiceRequest');
const MetricsRequest = root.lookupType('otlp.ExportMetricsServiceRequest');

/** One histogram point as received (cumulative: each export repeats the totals so far). */
export interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Record<string, unknown>;
  count: number;
  sum: number;
  explicitBounds: number[];
  resource: Record<string, unknown>;
  encoding: 'json' | 'protobuf';
}

/** A span as received, flattened. Kind: 1 internal, 2 server, 3 client (OTLP's numbering). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  /** Which encoding it came in. */
  encoding: 'json' | 'protobuf';
}

type Mode = 'ok' | 'error500' | 'hang';

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly points: ReceivedPoint[] = [];
  /** Each request's headers (a test checks the configured headers arrive). */
  readonly requests: Array<{ headers: IncomingMessage['headers']; contentType: string }> = [];
  mode: Mode = 'ok';
  readonly #waiters: Array<() => void> = [];
  readonly #hanging: ServerResponse[] = [];
  #counts = false;

  private constructor(private readonly server: Server) {}

  /** `counts`: a GET answers how many spans and points arrived (the receiver in its own process, otlpReceiverProcess.ts). */
  static async start(options: { counts?: boolean } = {}): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    receiver.#counts = options.counts === true;
    server.on('request', (req, res) => void receiver.#handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/traces`;
  }

  get metricsUrl(): string {
    return this.url.replace(/\/v1\/traces$/, '/v1/metrics');
  }

  /** Resolves once a span matching `predicate` arrived (event-driven, no polling). */
  waitFor(predicate: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
    return this.#waitIn(this.spans, predicate);
  }

  /** Resolves once a request matching `predicate` arrived (a hung one too: before it is left unanswered). */
  waitForRequest(
    predicate: (request: OtlpReceiver['requests'][number]) => boolean = () => true,
  ): Promise<OtlpReceiver['requests'][number]> {
    return this.#waitIn(this.requests, predicate);
  }

  /** Resolves once every request left hanging so far was closed by its sender (the exporter gave it up). */
  hangingClosed(): Promise<void> {
    return Promise.all(
      this.#hanging.map((res) =>
        res.socket?.destroyed === false ? new Promise((resolve) => res.socket?.once('close', resolve)) : undefined,
      ),
    ).then(() => undefined);
  }

  /** Resolves once a histogram point matching `predicate` arrived. */
  waitForPoint(predicate: (point: ReceivedPoint) => boolean): Promise<ReceivedPoint> {
    return this.#waitIn(this.points, predicate);
  }

  #waitIn<T>(list: T[], predicate: (item: T) => boolean): Promise<T> {
    return new Promise((resolve) => {
      const check = (): boolean => {
        const found = list.find(predicate);
        if (found) resolve(found);
        return found !== undefined;
      };
      if (check()) return;
      const waiter = (): void => {
        if (check()) this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      };
      this.#waiters.push(waiter);
    });
  }

  async close(): Promise<void> {
    for (const res of this.#hanging.splice(0)) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.#counts && req.method === 'GET') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ spans: this.spans.length, points: this.points.length }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const contentType = req.headers['content-type'] ?? '';
    this.requests.push({ headers: req.headers, contentType });
    if (this.mode === 'hang') {
      this.#hanging.push(res);
      for (const waiter of [...this.#waiters]) waiter();
      return;
    }
    if (this.mode === 'error500') {
      // A careless collector quotes the request it refused, headers (an API key among them) included.
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`collector exploded: ${JSON.stringify(req.headers)}`);
      return;
    }
    const json = contentType.includes('json');
    const metrics = (req.url ?? '').endsWith('/v1/metrics');
    const type = metrics ? MetricsRequest : Request;
    const decoded = json
      ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>)
      : (type.toObject(type.decode(body), { longs: String, bytes: String, defaults: false }) as Record<
          string,
          unknown
        >);
    if (metrics) this.points.push(...flattenPoints(decoded, json ? 'json' : 'protobuf'));
    else this.spans.push(...flatten(decoded, json ? 'json' : 'protobuf'));
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
    for (const waiter of [...this.#waiters]) waiter();
  }
}

type Obj = Record<string, unknown>;

function flatten(request: Obj, encoding: 'json' | 'protobuf'): ReceivedSpan[] {
  const id = (value: unknown): string =>
    typeof value !== 'string' || value === ''
      ? ''
      : encoding === 'json'
        ? value
        : Buffer.from(value, 'base64').toString('hex');
  const out: ReceivedSpan[] = [];
  for (const rs of (request.resourceSpans as Obj[] | undefined) ?? []) {
    const resource = attributes((rs.resource as Obj | undefined)?.attributes);
    for (const ss of (rs.scopeSpans as Obj[] | undefined) ?? []) {
      for (const span of (ss.spans as Obj[] | undefined) ?? []) {
        const parent = id(span.parentSpanId);
        const status = (span.status as Obj | undefined) ?? {};
        out.push({
          traceId: id(span.traceId),
          spanId: id(span.spanId),
          parentSpanId: parent === '' ? undefined : parent,
          name: span.name as string,
          kind: Number(span.kind ?? 0),
          attributes: attributes(span.attributes),
          events: ((span.events as Obj[] | undefined) ?? []).map((e) => ({
            name: e.name as string,
            attributes: attributes(e.attributes),
          })),
          status: {
            code: Number(status.code ?? 0),
            ...(typeof status.message === 'string' ? { message: status.message } : {}),
          },
          resource,
          encoding,
        });
      }
    }
  }
  return out;
}

function flattenPoints(request: Obj, encoding: 'json' | 'protobuf'): ReceivedPoint[] {
  const out: ReceivedPoint[] = [];
  for (const rm of (request.resourceMetrics as Obj[] | undefined) ?? []) {
    const resource = attributes((rm.resource as Obj | undefined)?.attributes);
    for (const sm of (rm.scopeMetrics as Obj[] | undefined) ?? []) {
      for (const metric of (sm.metrics as Obj[] | undefined) ?? []) {
        const histogram = metric.histogram as Obj | undefined;
        for (const point of (histogram?.dataPoints as Obj[] | undefined) ?? []) {
          out.push({
            metric: metric.name as string,
            unit: (metric.unit as string | undefined) ?? '',
            attributes: attributes(point.attributes),
            count: Number(point.count ?? 0),
            sum: Number(point.sum ?? 0),
            explicitBounds: ((point.explicitBounds as unknown[] | undefined) ?? []).map(Number),
            resource,
            encoding,
          });
        }
      }
    }
  }
  return out;
}

function attributes(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of (list as Obj[] | undefined) ?? []) out[kv.key as string] = anyValue(kv.value as Obj | undefined);
  return out;
}

function anyValue(value: Obj | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value) return ((value.arrayValue as Obj).values as Obj[] | undefined)?.map(anyValue) ?? [];
  return undefined;
}
