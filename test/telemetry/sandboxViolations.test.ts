/**
 * `miniharness.sandbox.violations` end to end: the app core runs a stdio server in its sandbox
 * (sandbox-runtime, issue 29), the server's connection is refused by the sandbox's proxy while a
 * call runs, and that call's exported span counts the violation (OTLP/protobuf to the loopback
 * receiver). A call without one carries none.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Core } from '../../electron/core/types.js';
import type { DispatchResult } from '../../shared/bridge.js';
import { OtlpReceiver } from '../doubles/otlpReceiver.js';
import { bundleServer } from '../helpers/buildFixtures.js';
import { PROJECT_ROOT, scratchDir } from '../helpers/fixtures.js';
import { allowCallsDenyEgress, buildScratchCore } from '../helpers/scratchCore.js';

const HOSTILE_SOURCE = join(PROJECT_ROOT, 'test', 'doubles', 'servers', 'hostile-server.ts');
const HOSTILE = join(PROJECT_ROOT, '.cache', 'fixtures', 'hostile-server-otel.mjs');

const scratch = scratchDir('mh-otel-sandbox-');
const listener = createServer((socket) => socket.end());
let core: Core;
let receiver: OtlpReceiver;

async function call<T>(channel: string, payload: unknown): Promise<T> {
  const result: DispatchResult = await core.dispatch(channel, payload);
  if (!result.ok) throw Object.assign(new Error(result.error.message), { shape: result.error });
  return result.result as T;
}

beforeAll(async () => {
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  await bundleServer(HOSTILE_SOURCE, HOSTILE);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  receiver = await OtlpReceiver.start();
  core = await buildScratchCore(scratch.dir, { version: '0.0.0-test', secretsLabel: 'otel sandbox test' });
  allowCallsDenyEgress(core);
}, 60_000);
afterAll(async () => {
  await core?.close();
  await receiver?.close();
  listener.close();
  scratch.cleanup();
});

it.runIf(process.platform === 'linux')(
  'a call during which the sandbox refused a connection says how many times; a call without one says nothing',
  async () => {
    await call('observability.set', {
      enabled: true,
      protocol: 'http/protobuf',
      endpoint: receiver.url,
      serviceName: 'sandbox',
      sampleRatio: 1,
      headers: [],
      exportPayloads: false,
      viewerUrl: '',
    });
    await call('servers.save', {
      mode: 'create',
      config: {
        id: 'caged',
        name: 'Caged',
        transport: 'stdio',
        command: process.execPath,
        args: [HOSTILE],
        timeoutMs: 20_000,
        sandbox: { enabled: true },
      },
    });
    await call('servers.connect', { id: 'caged' });
    const attempt = (args: Record<string, unknown>) =>
      call<{ traceId: string }>('tools.call', { name: 'attempt', serverId: 'caged', args, callId: randomUUID() });

    const quiet = await attempt({ kind: 'read', target: join(scratch.dir, 'data', 'miniharness.db') });
    const port = (listener.address() as AddressInfo).port;
    const proxied = await attempt({ kind: 'proxy', target: '127.0.0.1', port });
    const span = await receiver.waitFor((s) => s.attributes['miniharness.trace.id'] === proxied.traceId);
    expect(span.attributes['miniharness.sandbox.violations']).toBeGreaterThanOrEqual(1);
    const none = await receiver.waitFor((s) => s.attributes['miniharness.trace.id'] === quiet.traceId);
    expect(none.attributes['miniharness.sandbox.violations']).toBeUndefined();
  },
);
