/**
 * A core whose tool calls are recorded in PostgreSQL (`--database`) exports the opt-in payload
 * attributes too: the call's arguments and result are read from that database after the call
 * returned (in the spans' idle batch), redacted and size-capped as on SQLite. Before, telemetry
 * read them synchronously from the SQLite file, where such a call has no record: the spans came
 * without them. Real parts: PostgreSQL, the 2026 HTTP fixture server, the loopback OTLP receiver.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redactDatabaseUrl } from '../../electron/storage/postgres/url.js';
import { OtlpReceiver } from '../doubles/otlpReceiver.js';
import type { ModernHttpFixture } from '../doubles/servers/modern-http.js';
import { startModernHttp } from '../doubles/servers/modern-http.js';
import type { GatewayApp } from '../gateway/support.js';
import { saveServerListed, startGatewayApp } from '../gateway/support.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

describePostgres('OpenTelemetry payloads with the calls in PostgreSQL', () => {
  const scratch = scratchDir('mh-otel-pg-');
  const secret = 'sk-live-otel-pg-payload-secret-71ab';
  let database: TestDatabase;
  let receiver: OtlpReceiver;
  let upstream: ModernHttpFixture;
  let app: GatewayApp;

  beforeAll(async () => {
    // The standard batch delay variable: spans leave within 50 ms (the receiver's waits are event-driven).
    process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
    database = await createTestDatabase('otelpayloads');
    receiver = await OtlpReceiver.start();
    upstream = await startModernHttp();
    const selection = { kind: 'postgres' as const, url: database.url, where: redactDatabaseUrl(database.url) };
    app = await startGatewayApp(join(scratch.dir, 'core'), { database: selection });
    // A server's stored bearer token: from then on the app's redactor knows its value.
    await saveServerListed(
      app,
      {
        id: 'up',
        name: 'Upstream',
        transport: 'streamable_http',
        url: upstream.url,
        auth: { kind: 'bearer', token: { source: 'store', key: 'auth.token' } },
      },
      { 'auth.token': secret },
    );
    await app.call('permissions.setToolLevel', { serverId: 'up', toolName: 'echo', level: 'ALLOW' });
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await upstream?.close();
    await receiver?.close();
    await database?.drop();
    scratch.cleanup();
  });

  const exportTo = (exportPayloads: boolean) =>
    app.call('observability.set', {
      enabled: true,
      protocol: 'http/json',
      endpoint: receiver.url,
      serviceName: 'mh-pg',
      sampleRatio: 1,
      headers: [],
      exportPayloads,
      exportMetrics: false,
      viewerUrl: '',
    });

  const echo = async (text: string) => {
    const { traceId } = await app.call<{ traceId: string }>('tools.call', {
      name: 'echo',
      serverId: 'up',
      args: { text },
      callId: randomUUID(),
    });
    return receiver.waitFor((s) => s.attributes['miniharness.trace.id'] === traceId);
  };

  it('payloads on: the arguments and result read from PostgreSQL, redacted and capped', async () => {
    await exportTo(true);
    const span = await echo(`the key is ${secret} ${'x'.repeat(5000)}`);
    const args = span.attributes['gen_ai.tool.call.arguments'] as string;
    expect(args.startsWith('{"text":"the key is [redacted] xxx')).toBe(true);
    expect(args.endsWith('…(truncated)')).toBe(true);
    expect(args.length).toBeLessThan(4200);
    const result = span.attributes['gen_ai.tool.call.result'] as string;
    expect(result).toContain('[redacted]');
    expect(JSON.stringify(span)).not.toContain(secret);
  });

  it('payloads off: neither arguments nor result', async () => {
    await exportTo(false);
    const span = await echo('quiet');
    expect(span.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(span.attributes['gen_ai.tool.call.result']).toBeUndefined();
    expect(JSON.stringify(receiver.spans)).not.toContain(secret);
  });
});
