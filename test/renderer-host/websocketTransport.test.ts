/**
 * The renderer's own bridge client (renderer/src/bridge: the WebSocket transport under the typed
 * client), run in Node against the real host process with the `ws` package's WebSocket class:
 * - a request the contract accepts but one message cannot carry is refused before it is sent,
 *   by code, with the sizes, and the connection is untouched;
 * - tool arguments over the contract's own limit are refused by code as well;
 * - a call in flight when the host goes away fails at once as `disconnected` (no hanging), the
 *   connection state says so, and the client reconnects by itself when the host is back.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createBridgeClient } from '../../renderer/src/bridge/client.js';
import type { BridgeClient } from '../../renderer/src/bridge/client.js';
import { BridgeError } from '../../renderer/src/bridge/errors.js';
import type { ConnectionState } from '../../renderer/src/bridge/transport.js';
import type { WebSocketClass } from '../../renderer/src/bridge/websocketTransport.js';
import { createWebSocketTransport } from '../../renderer/src/bridge/websocketTransport.js';
import { MAX_BRIDGE_FRAME_BYTES } from '../../shared/bridge.js';
import { MAX_TOOL_ARGS_BYTES } from '../../shared/limits.js';
import type { WebHostProcess } from '../e2e/support/webHost.js';
import { newToken, startWebHost } from '../e2e/support/webHost.js';
import { scratchDir } from '../helpers/fixtures.js';

function nextState(client: BridgeClient, status: ConnectionState['status']): Promise<ConnectionState> {
  return new Promise((resolve) => {
    const now = client.connection.get();
    if (now.status === status) return resolve(now);
    const unsubscribe = client.connection.subscribe((state) => {
      if (state.status !== status) return;
      unsubscribe();
      resolve(state);
    });
  });
}

async function failureOf(promise: Promise<unknown>): Promise<BridgeError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof BridgeError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('renderer WebSocket transport against the real host', () => {
  const scratch = scratchDir('mh-transport-');
  const dataDir = join(scratch.dir, 'data');
  const token = newToken();
  let host: WebHostProcess;
  let client: BridgeClient;

  beforeAll(async () => {
    host = await startWebHost({ dataDir, token });
    const origin = host.origin;
    /** The page's WebSocket: a browser sends the page's Origin and never throws on 'error'. */
    class PageSocket extends WebSocket {
      constructor(url: string, protocols: string) {
        super(url, protocols, { origin });
        this.on('error', () => undefined);
      }
    }
    client = createBridgeClient(
      createWebSocketTransport(token, {
        origin: host.origin,
        WebSocket: PageSocket as unknown as WebSocketClass,
        baseDelayMs: 50,
        maxDelayMs: 200,
      }),
    );
    await nextState(client, 'open');
    // The host's start (tsx) is waited for as an event; this is a cap for a hang (60 s ran out at load average 28 on 2 cores).
  }, 200_000);
  afterAll(async () => {
    await host.stop();
    scratch.cleanup();
  });

  it('refuses a request that does not fit in one message before sending it, and stays connected', async () => {
    // The contract accepts any number of VS Code inputs; 1,100 of 16 KiB do not fit in one frame.
    const inputs = Object.fromEntries(Array.from({ length: 1_100 }, (_, i) => [`input${i}`, 'v'.repeat(16_000)]));
    const error = await failureOf(client.call('import.apply', { content: '{"servers":{}}', names: ['a'], inputs }));
    expect(error.code).toBe('request_too_large');
    expect(error.details?.limitBytes).toBe(MAX_BRIDGE_FRAME_BYTES);
    expect(error.details?.sizeBytes).toBeGreaterThan(MAX_BRIDGE_FRAME_BYTES);
    expect(error.message).toMatch(/Nothing was sent/);
    expect(client.connection.get().status).toBe('open');
    expect((await client.call('app.info', {})).mode).toBe('browser');
    expect(host.alive()).toBe(true);
  });

  it('refuses tool arguments over the contract limit by code, with the sizes', async () => {
    const error = await failureOf(
      client.call('tools.call', {
        name: 'write_file',
        serverId: 'local',
        args: { path: 'x.txt', content: 'x'.repeat(MAX_TOOL_ARGS_BYTES) },
        callId: 'too-large-args-1',
      }),
    );
    expect(error.code).toBe('request_too_large');
    expect(error.details?.limitBytes).toBe(MAX_TOOL_ARGS_BYTES);
    expect(error.details?.sizeBytes).toBeGreaterThan(MAX_TOOL_ARGS_BYTES);
    expect(error.message).toMatch(/limit is 12 MiB\. Nothing was sent\./);
    expect(client.connection.get().status).toBe('open');
  });

  it(
    'fails the call in flight as disconnected when the host goes, and reconnects when it is back',
    { timeout: 90_000 },
    async () => {
      const port = Number(new URL(host.origin).port);
      let approvalAsked!: () => void;
      const asked = new Promise<void>((resolve) => (approvalAsked = resolve));
      const stop = client.on('approval.requested', () => approvalAsked());
      // write_file asks first, so this call is still in flight when the host goes away.
      const inFlight = failureOf(
        client.call('tools.call', {
          name: 'write_file',
          serverId: 'local',
          args: { path: 'lost.txt', content: 'x' },
          callId: 'in-flight-at-drop-1',
        }),
      );
      await asked;
      stop();

      const dropped = nextState(client, 'reconnecting');
      await host.stop();
      const error = await inFlight;
      expect(error.code).toBe('disconnected');
      expect(error.message).toMatch(/lost before the answer arrived/);
      expect((await dropped).status).toBe('reconnecting');

      host = await startWebHost({ dataDir, token, port });
      await nextState(client, 'open');
      expect((await client.call('app.info', {})).mode).toBe('browser');
    },
  );
});
