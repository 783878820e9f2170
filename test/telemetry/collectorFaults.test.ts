/**
 * A collector that answers 500, hangs, or is not there never fails or holds up a call: the calls
 * answer as before, and what was lost is counted (failed exports; spans dropped once the bounded
 * queue is full). Real pipeline (stdio fixture, SQLite), real OTLP exporter, loopback receiver.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TelemetryConfig } from '../../electron/telemetry/telemetry.js';
import { OtlpReceiver } from '../doubles/otlpReceiver.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { TelemetryPipeline } from '../helpers/telemetryPipeline.js';
import { startTelemetryPipeline } from '../helpers/telemetryPipeline.js';

function config(url: string, overrides: Partial<TelemetryConfig> = {}): TelemetryConfig {
  return {
    protocol: 'http/json',
    url,
    metricsUrl: url.replace(/\/v1\/traces$/, '/v1/metrics'),
    headers: {},
    serviceName: 'faults',
    serviceVersion: '0',
    sampleRatio: 1,
    exportPayloads: false,
    scheduledDelayMs: 20,
    ...overrides,
  };
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a collector that fails never fails a call', () => {
  const scratch = scratchDir('mh-otel-faults-');
  let receiver: OtlpReceiver;
  let app: TelemetryPipeline;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    app = await startTelemetryPipeline(scratch.dir);
  }, 30_000);

  afterEach(() => {
    receiver.mode = 'ok';
  });

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
    scratch.cleanup();
  });

  it('exports when the collector answers (the baseline the others differ from)', async () => {
    await app.telemetry.configure(config(receiver.url));
    await app.echo('fine');
    await app.telemetry.flush();
    expect(app.telemetry.stats()).toMatchObject({ exported: 1, failed: 0, dropped: 0 });
    await receiver.waitFor((s) => s.name === 'tools/call echo');
    // The metrics are a choice of their own, off unless chosen: the flush sent none.
    expect(receiver.points).toEqual([]);
  });

  it('metrics chosen too: the flush sends the call’s mcp.client.operation.duration to the same collector', async () => {
    await app.telemetry.configure(config(receiver.url, { exportMetrics: true }));
    await app.echo('measured');
    await app.telemetry.flush();
    const point = await receiver.waitForPoint((p) => p.metric === 'mcp.client.operation.duration');
    expect(point.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'network.transport': 'pipe' });
    expect(point.count).toBe(1);
  });

  it('a collector answering 500: the calls answer; their spans count as failed, with the status', async () => {
    const before = app.telemetry.stats();
    receiver.mode = 'error500';
    await app.telemetry.configure(config(receiver.url));
    await expect(app.echo('during 500')).resolves.toBe('during 500');
    await expect(app.echo('during 500 again')).resolves.toBe('during 500 again');
    await app.telemetry.flush();
    const after = app.telemetry.stats();
    expect(after.failed - before.failed).toBe(2);
    expect(after.exported).toBe(before.exported);
    expect(after.lastError).toContain('500');
  });

  it('no collector at all: the calls answer; their spans count as failed', async () => {
    const before = app.telemetry.stats();
    await app.telemetry.configure(config(`http://127.0.0.1:${await closedPort()}/v1/traces`));
    await expect(app.echo('nobody listens')).resolves.toBe('nobody listens');
    await app.telemetry.flush();
    expect(app.telemetry.stats().failed - before.failed).toBe(1);
  });

  it('a collector that hangs: the calls answer; once the queue is full, spans are dropped and counted', async () => {
    const before = app.telemetry.stats();
    receiver.mode = 'hang';
    // Two spans may wait; the batch of two goes out at once and hangs until the export's timeout.
    await app.telemetry.configure(config(receiver.url, { maxQueueSize: 2, exportTimeoutMs: 5_000 }));
    for (let i = 0; i < 6; i++) await expect(app.echo(`hang ${i}`)).resolves.toBe(`hang ${i}`);
    // The hung export ends by its timeout, as failed.
    await app.telemetry.flush();
    expect(app.telemetry.stats().dropped - before.dropped).toBe(4);
    expect(app.telemetry.stats().failed - before.failed).toBe(2);
  });

  it('closing while the collector hangs is bounded: the export in flight is abandoned (counted as failed), not waited for', async () => {
    const before = app.telemetry.stats();
    receiver.mode = 'hang';
    // An export timeout far beyond the test's: closing that waited for the collector (as before) never returns here.
    await app.telemetry.configure(config(receiver.url, { exportTimeoutMs: 600_000 }));
    await app.echo('at close');
    const arrived = receiver.requests.length;
    await receiver.waitForRequest((request) => receiver.requests.indexOf(request) >= arrived);
    await app.telemetry.close();
    expect(app.telemetry.stats().failed - before.failed).toBe(1);
    // The exporter let go of the collector's connection (its worker was stopped).
    await receiver.hangingClosed();
  });
});
