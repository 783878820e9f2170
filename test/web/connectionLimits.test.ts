/**
 * The browser-mode host holds no slow or surplus connection (issue 19, attack finding 7): a real
 * host (core + HTTP + WebSocket) with small limits, reached over raw TCP sockets. A request whose
 * headers arrive too slowly is answered 408 and closed by node:http itself; connections beyond
 * the cap are closed at once; and the host serves again once the surplus is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../helpers/fixtures.js';
import { rawSocket } from '../helpers/rawSocket.js';
import type { RunningHost } from './host.js';
import { TEST_TOKEN, startTestHost } from './host.js';

describe('browser-mode host connection limits', () => {
  const scratch = scratchDir('mh-web-conns-');
  let slowHost: RunningHost;
  let cappedHost: RunningHost;

  beforeAll(async () => {
    slowHost = await startTestHost(`${scratch.dir}/slow`, { httpLimits: { requestTimeoutMs: 400 } });
    cappedHost = await startTestHost(`${scratch.dir}/capped`, { httpLimits: { maxConnections: 3 } });
  }, 60_000);
  afterAll(async () => {
    await slowHost?.close();
    await cappedHost?.close();
    scratch.cleanup();
  });

  it('a request whose headers arrive too slowly gets 408 and its connection closes', async () => {
    const { port } = slowHost.host;
    const slow = await rawSocket('127.0.0.1', port);
    // The host reads no request body (its only POST-free routes answer at once): a slow request is slow headers.
    slow.socket.write(`GET /session HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n`);
    await slow.closed;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    const served = await fetch(`http://127.0.0.1:${port}/session`, {
      headers: { Authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(served.status).toBe(200);
  });

  it('connections beyond the cap are closed at once; the host serves again once they go', async () => {
    const { port } = cappedHost.host;
    const held = await Promise.all([1, 2, 3].map(() => rawSocket('127.0.0.1', port)));
    const surplus = await rawSocket('127.0.0.1', port);
    await surplus.closed;
    expect(surplus.received()).toBe('');
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    // The server learns of the closes on its own turn: the first requests after may still meet the cap.
    let status = 0;
    for (let attempt = 0; attempt < 100 && status === 0; attempt++) {
      status = await fetch(`http://127.0.0.1:${port}/session`, {
        headers: { Authorization: `Bearer ${TEST_TOKEN}` },
      }).then(
        (r) => r.status,
        () => 0,
      );
    }
    expect(status).toBe(200);
  });
});
