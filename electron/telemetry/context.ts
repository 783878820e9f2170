/**
 * Trace context in both directions.
 *
 * In: an agent's W3C `traceparent` (and `tracestate`) — from `params._meta` on 2026-07-28, from
 * the HTTP headers on a 2025 session — becomes the parent of the gateway's server span.
 * Out: a call's span is given to the server it reaches as `_meta.traceparent` (callSpans.ts).
 * Within: the span a piece of work runs under (a gateway request, an agent run) is kept in an
 * AsyncLocalStorage, so the call traces started under it become its children without threading
 * a parameter through the pipeline. Only the telemetry enters it, and only while export is on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, Span, TextMapGetter } from '@opentelemetry/api';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const propagator = new W3CTraceContextPropagator();
const ambient = new AsyncLocalStorage<Context>();

/** The context new spans are parented to here (the work's span, else none). */
export function currentContext(): Context {
  return ambient.getStore() ?? ROOT_CONTEXT;
}

/** Runs `fn` with `span` as the parent of the spans started inside it (across awaits). */
export function runWithSpan<T>(span: Span, fn: () => T): T {
  return ambient.run(trace.setSpan(currentContext(), span), fn);
}

type Carrier = Record<string, unknown>;

const getter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    // Node's headers: a repeated header is an array.
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
    return undefined;
  },
};

/** The remote parent in a carrier (`_meta` or HTTP headers); the root context when it has none or a malformed one. */
export function extractContext(carrier: Carrier | undefined): Context {
  if (!carrier) return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, carrier, getter);
}

/** Whether the carrier holds a valid remote parent. */
export function hasRemoteParent(context: Context): boolean {
  return trace.getSpanContext(context) !== undefined;
}
