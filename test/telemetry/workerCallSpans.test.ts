/**
 * The calls' spans and the client metric are made in the export worker (exportWorker.ts) from the plain
 * records the app's thread posts: the span keeps the ids chosen on the app's thread (the server was given
 * that traceparent), its remote parent, times, attributes, events and error status; the worker's counts
 * come back into the pipeline's counters; the metric is recorded there. Before, the worker only took
 * finished SDK spans (no `calls` on the pipeline: these records were made into nothing).
 */
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallRecord } from '../../electron/telemetry/exportWorker.js';
import { ExportPipeline } from '../../electron/telemetry/exportPipeline.js';
import { OtlpReceiver } from '../doubles/otlpReceiver.js';

let receiver: OtlpReceiver;
beforeAll(async () => (receiver = await OtlpReceiver.start()));
afterAll(() => receiver.close());

it('a posted call record becomes its span and its metric in the worker, with the ids and parent given', async () => {
  const pipeline = new ExportPipeline({
    protocol: 'http/protobuf',
    url: receiver.url,
    metricsUrl: receiver.metricsUrl,
    headers: {},
    serviceName: 'worker-calls',
    serviceVersion: '0',
    sampleRatio: 1,
    exportMetrics: true,
  });
  await pipeline.ready();
  const traceId = pipeline.ids.newTraceId();
  const spanId = pipeline.ids.newSpanId();
  const parentSpanId = pipeline.ids.newSpanId();
  const record: CallRecord = {
    span: true,
    name: 'tools/call echo',
    kind: SpanKind.CLIENT,
    traceId,
    spanId,
    parent: { traceId, spanId: parentSpanId, traceFlags: 1, isRemote: true, traceState: 'vendor=1' },
    start: Date.now() - 5,
    end: Date.now(),
    attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'error.type': 'tool_error' },
    events: [['miniharness.approval', { answer: 'allow-once' }, Date.now() - 2]],
    errorMessage: 'the tool said no',
    requests: [[3, 'tool_error']],
  };
  // Not sampled: no span, but measured.
  const unsampled: CallRecord = {
    ...record,
    span: false,
    spanId: pipeline.ids.newSpanId(),
    requests: [[4, undefined]],
  };
  pipeline.calls([record, unsampled]);
  await pipeline.flush();
  const span = await receiver.waitFor((s) => s.spanId === spanId);
  expect(span).toMatchObject({
    traceId,
    parentSpanId,
    name: 'tools/call echo',
    kind: 3,
    status: { code: 2, message: 'the tool said no' },
    resource: { 'service.name': 'worker-calls' },
  });
  expect(span.attributes['gen_ai.tool.name']).toBe('echo');
  expect(span.events.map((e) => e.name)).toEqual(['miniharness.approval']);
  expect(receiver.spans.filter((s) => s.traceId === traceId)).toHaveLength(1);
  expect(pipeline.stats.exported).toBe(1);
  // Each request's own error type (the sampled call's failed request; the unsampled call's ok one).
  const client = (errorType: string | undefined) =>
    receiver.waitForPoint(
      (p) => p.metric === 'mcp.client.operation.duration' && p.attributes['error.type'] === errorType,
    );
  for (const point of [await client('tool_error'), await client(undefined)]) {
    expect(point.count).toBe(1);
    expect(point.attributes['mcp.method.name']).toBe('tools/call');
  }
  await pipeline.shutdown();
});
