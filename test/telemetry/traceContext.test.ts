/**
 * The `traceparent` / `tracestate` a call gives its server (callSpans.ts `traceContextOf`, written
 * on the call's path without a Context) are the strings the official W3CTraceContextPropagator
 * writes for the same span context, and read back as that context.
 */
import { ROOT_CONTEXT, TraceFlags, defaultTextMapGetter, defaultTextMapSetter, trace } from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { traceContextOf } from '../../electron/telemetry/callSpans.js';

const propagator = new W3CTraceContextPropagator();
const ids = new RandomIdGenerator();

function official(traceId: string, spanId: string, sampled: boolean, traceState?: TraceState): Record<string, string> {
  const carrier: Record<string, string> = {};
  const context = trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    ...(traceState ? { traceState } : {}),
  });
  propagator.inject(context, carrier, defaultTextMapSetter);
  return carrier;
}

describe('a call’s W3C trace context', () => {
  const states = [undefined, new TraceState('vendor=abc,other=x-y'), new TraceState('')];
  for (const sampled of [true, false])
    for (const state of states)
      it(`matches the official propagator (sampled ${sampled}, tracestate ${JSON.stringify(state?.serialize())})`, () => {
        for (let i = 0; i < 50; i++) {
          const traceId = ids.generateTraceId();
          const spanId = ids.generateSpanId();
          const ours = traceContextOf(traceId, spanId, sampled, state);
          expect(ours).toEqual(official(traceId, spanId, sampled, state));
          const back = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, ours, defaultTextMapGetter));
          expect(back).toMatchObject({ traceId, spanId, traceFlags: sampled ? 1 : 0, isRemote: true });
        }
      });
});
