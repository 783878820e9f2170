/**
 * The attributes set from a call's own trace events, beside the decision: sandbox violations
 * (`sandbox_violation` events recorded while the call ran) and a pinning change (the tool's
 * definition changed since it was approved: the decision asked again, `tool-changed`). A real
 * Tracer on SQLite feeds the app's Telemetry, exported over OTLP/JSON to the loopback receiver.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAppDatabase } from '../../electron/core/database.js';
import { Tracer } from '../../electron/tracing/tracer.js';
import { Telemetry } from '../../electron/telemetry/telemetry.js';
import { OtlpReceiver } from '../doubles/otlpReceiver.js';
import { scratchDir } from '../helpers/fixtures.js';

describe('call span attributes from the trace: sandbox violations and pinning changes', () => {
  const scratch = scratchDir('mh-otel-hooks-');
  let receiver: OtlpReceiver;
  let tracer: Tracer;
  let telemetry: Telemetry;
  let db: ReturnType<typeof openAppDatabase>;
  let n = 0;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    db = openAppDatabase(join(scratch.dir, 'harness.db'));
    tracer = new Tracer(db);
    telemetry = new Telemetry({
      tracer,
      localServerId: 'local',
      describeServer: () => ({ transport: 'pipe' }),
      redactText: (text) => text,
      redact: (value) => value,
      recorded: () => undefined,
    });
    await telemetry.configure({
      protocol: 'http/json',
      url: receiver.url,
      metricsUrl: receiver.metricsUrl,
      headers: {},
      serviceName: 'hooks',
      serviceVersion: '0',
      sampleRatio: 1,
      exportPayloads: false,
      exportMetrics: true,
      scheduledDelayMs: 20,
    });
  });

  afterAll(async () => {
    await telemetry?.close();
    tracer?.flush();
    db?.close();
    await receiver?.close();
    scratch.cleanup();
  });

  /** Records one call's trace with these events and returns its exported span. */
  async function call(record: (trace: ReturnType<Tracer['start']>) => void, status: 'ok' | 'denied' = 'ok') {
    const callId = `call-${++n}`;
    const trace = tracer.start({ sessionId: 's', callId, userId: 'tester', toolName: 'fetch', serverId: 'boxed' });
    record(trace);
    trace.finish(status);
    await telemetry.flush();
    return receiver.waitFor((s) => s.attributes['miniharness.checkpoint.call_id'] === callId);
  }

  it('counts the sandbox violations recorded while the call ran', async () => {
    const span = await call((trace) => {
      trace.event('decision', { outcome: 'allow', kind: 'rule' });
      trace.event('attempt_started', { attempt: 1 });
      trace.event('sandbox_violation', { line: 'denied connect to example.com:443' });
      trace.event('sandbox_violation', { line: 'denied connect to example.org:443' });
      trace.event('attempt_finished', { attempt: 1, outcome: 'ok' });
      trace.event('completed', { isError: false });
    });
    expect(span.attributes['miniharness.sandbox.violations']).toBe(2);
  });

  it('a call without violations carries none', async () => {
    const span = await call((trace) => {
      trace.event('decision', { outcome: 'allow', kind: 'rule' });
      trace.event('completed', { isError: false });
    });
    expect(span.attributes['miniharness.sandbox.violations']).toBeUndefined();
    expect(span.attributes['miniharness.pinning.change']).toBeUndefined();
  });

  it('a tool whose definition changed and the person approved again: reapproved', async () => {
    const span = await call((trace) => {
      trace.event('decision', { outcome: 'ask', kind: 'tool-changed', reason: 'fetch changed since it was approved' });
      trace.event('approval_requested', { approvalId: 'a1' });
      trace.event('approval_answered', { approved: true, answeredBy: 'allow-once', waitedMs: 5 });
      trace.event('completed', { isError: false });
    });
    expect(span.attributes).toMatchObject({
      'miniharness.pinning.change': 'reapproved',
      'miniharness.permission.kind': 'tool-changed',
      'miniharness.approval.answer': 'allow-once',
    });
  });

  it('a changed tool the person refused: refused', async () => {
    const span = await call((trace) => {
      trace.event('decision', { outcome: 'ask', kind: 'tool-changed' });
      trace.event('approval_answered', { approved: false, answeredBy: 'deny', waitedMs: 5 });
    }, 'denied');
    expect(span.attributes['miniharness.pinning.change']).toBe('refused');
  });
});
