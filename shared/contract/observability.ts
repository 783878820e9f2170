/**
 * The contract's `observability.*` part: Settings → Observability, the OpenTelemetry export of
 * every call's trace (off by default). Header values are secrets: they go in, never come back.
 */
import { z } from 'zod';
import type { DomainChannels } from './common.js';
import { Empty, channel } from './common.js';

/** An HTTP header name (RFC 9110 token). */
const HeaderName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'must be an HTTP header name');

const ObservabilityViewSchema = z.object({
  enabled: z.boolean(),
  protocol: z.enum(['http/protobuf', 'http/json']),
  /** The collector's OTLP/HTTP endpoint; '' = the `OTEL_EXPORTER_OTLP_*` variables (else http://localhost:4318). */
  endpoint: z.string(),
  /** What the environment's `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT` says, shown beside an empty endpoint. */
  environmentEndpoint: z.string().optional(),
  serviceName: z.string(),
  /** The share of traces MiniHarness starts that are kept (0–1); an agent's own trace keeps its own choice. */
  sampleRatio: z.number(),
  /** The headers sent to the collector: names only; each value is in the secret store. */
  headers: z.array(HeaderName),
  /** Opt-in: tool-call arguments and results on the spans (redacted, capped). */
  exportPayloads: z.boolean(),
  /** Opt-in: the MCP duration metrics (`mcp.client/server.operation.duration`) to the same collector. */
  exportMetrics: z.boolean(),
  /** A trace viewer's URL with `{traceId}` (Jaeger: http://localhost:16686/trace/{traceId}); '' = none. */
  viewerUrl: z.string(),
  /** Since the app started: spans the collector took, dropped (queue full) and failed (the collector refused, hung or was away). */
  stats: z.object({
    exported: z.number().int(),
    dropped: z.number().int(),
    failed: z.number().int(),
    lastError: z.string().optional(),
  }),
});
export type ObservabilityView = z.infer<typeof ObservabilityViewSchema>;

const HttpUrlOrEmpty = z
  .string()
  .max(2048)
  .refine((value) => value === '' || /^https?:\/\/[^\s]+$/i.test(value), 'must be an http(s) URL, or empty');

const ObservabilitySetSchema = z
  .object({
    enabled: z.boolean(),
    protocol: z.enum(['http/protobuf', 'http/json']),
    endpoint: HttpUrlOrEmpty,
    serviceName: z.string().min(1).max(100),
    sampleRatio: z.number().min(0).max(1),
    /** Each header to send; `value` absent keeps the stored one; a header left out is deleted. */
    headers: z
      .array(
        z
          .object({
            name: HeaderName,
            value: z
              .string()
              .max(4096)
              .regex(/^[^\r\n]*$/, 'must be one line')
              .optional(),
          })
          .strict(),
      )
      .max(20),
    exportPayloads: z.boolean(),
    /** Absent: the saved choice stays. */
    exportMetrics: z.boolean().optional(),
    viewerUrl: HttpUrlOrEmpty,
  })
  .strict();
export type ObservabilitySet = z.infer<typeof ObservabilitySetSchema>;

export const observabilityChannels = {
  'observability.get': channel(Empty, ObservabilityViewSchema),
  /** Saves and applies at once (export starts, stops or moves to the new collector). */
  'observability.set': channel(ObservabilitySetSchema, ObservabilityViewSchema),
  /** Sends one span to the saved collector and says what it answered. */
  'observability.test': channel(Empty, z.object({ ok: z.boolean(), message: z.string(), traceId: z.string() })),
  /** The exported trace id of a MiniHarness trace (remembered since the app started), and its viewer link. */
  'observability.traceLink': channel(
    z.object({ traceId: z.string().min(1).max(100) }).strict(),
    z.object({ externalTraceId: z.string().optional(), url: z.string().optional() }),
  ),
} as const satisfies DomainChannels;
