/**
 * A core with export on to a collector that hangs closes within its bound (Telemetry.close): the
 * span export still out when it closes is abandoned — the export worker stopped, the connection to
 * the collector let go — instead of holding the close (and the process) until the exporter's timeout.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, it, describe } from 'vitest';
import { OtlpReceiver } from '../doubles/otlpReceiver.js';
import type { ModernHttpFixture } from '../doubles/servers/modern-http.js';
import { startModernHttp } from '../doubles/servers/modern-http.js';
import type { GatewayApp } from '../gateway/support.js';
import { saveServerListed, startGatewayApp } from '../gateway/support.js';
import { scratchDir } from '../helpers/fixtures.js';

describe('closing a core while the collector hangs', () => {
  const scratch = scratchDir('mh-otel-close-');
  let receiver: OtlpReceiver;
  let upstream: ModernHttpFixture;
  let app: GatewayApp | undefined;

  beforeAll(async () => {
    process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
    receiver = await OtlpReceiver.start();
    receiver.mode = 'hang';
    upstream = await startModernHttp();
    app = await startGatewayApp(scratch.dir);
    await saveServerListed(app, { id: 'up', name: 'Upstream', transport: 'streamable_http', url: upstream.url });
    await app.call('permissions.setToolLevel', { serverId: 'up', toolName: 'echo', level: 'ALLOW' });
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await upstream?.close();
    await receiver?.close();
    scratch.cleanup();
  });

  it('the close returns with the export to the hung collector abandoned', async () => {
    const core = app as GatewayApp;
    await core.call('observability.set', {
      enabled: true,
      protocol: 'http/protobuf',
      endpoint: receiver.url,
      serviceName: 'mh-close',
      sampleRatio: 1,
      headers: [],
      exportPayloads: false,
      exportMetrics: false,
      viewerUrl: '',
    });
    await core.call('tools.call', { name: 'echo', serverId: 'up', args: { text: 'at close' }, callId: randomUUID() });
    // The span's export reached the collector, which never answers.
    await receiver.waitForRequest((request) => request.contentType.includes('protobuf'));
    app = undefined;
    await core.close();
    // The connection to the collector is let go (the worker stopped), not left hanging.
    await receiver.hangingClosed();
  });
});
