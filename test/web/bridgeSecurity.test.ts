import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../helpers/fixtures.js';
import type { RunningHost } from './host.js';
import { BridgeClient, TEST_TOKEN, startTestHost } from './host.js';

describe('browser-mode bridge: loopback only, token, Host and Origin checks', () => {
  const scratch = scratchDir();
  let running: RunningHost;
  let port: number;

  beforeAll(async () => {
    running = await startTestHost(scratch.dir);
    port = running.host.port;
  });
  afterAll(async () => {
    await running.close();
    scratch.cleanup();
  });

  /** node:http, because fetch does not let a caller set Host (a rebinding page's browser would). */
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders }>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, headers }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, headers: res.headers });
      })
        .on('error', reject)
        .end();
    });

  it('serves the page with a strict CSP to the right Host', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(
      /default-src 'self'.*object-src 'none'.*frame-ancestors 'none'/,
    );
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin with 403', async () => {
    expect((await get('/', { Host: `evil.example:${port}` })).status).toBe(403);
    expect((await get('/', { Host: `127.0.0.1:${port + 1}` })).status).toBe(403);
    expect(
      (await get('/session', { Origin: 'http://evil.example', Authorization: `Bearer ${TEST_TOKEN}` })).status,
    ).toBe(403);
  });

  it('checks the token on /session', async () => {
    expect((await get('/session')).status).toBe(401);
    expect((await get('/session', { Authorization: 'Bearer wrong-token-wrong-token' })).status).toBe(401);
    expect((await get('/session', { Authorization: `Bearer ${TEST_TOKEN}` })).status).toBe(200);
  });

  it('refuses bridge connections without the token, with a wrong token, a foreign Host or Origin', async () => {
    await expect(BridgeClient.connect(port, { token: '' })).rejects.toThrow('HTTP 401');
    await expect(BridgeClient.connect(port, { token: `${TEST_TOKEN}x` })).rejects.toThrow('HTTP 401');
    await expect(BridgeClient.connect(port, { host: `attacker.example:${port}` })).rejects.toThrow('HTTP 403');
    await expect(BridgeClient.connect(port, { origin: 'http://attacker.example' })).rejects.toThrow('HTTP 403');
    await expect(BridgeClient.connect(port, { origin: `http://127.0.0.1:${port + 1}` })).rejects.toThrow('HTTP 403');
    await expect(BridgeClient.connect(port, { origin: '' })).rejects.toThrow('HTTP 403');
  });

  it('takes the token from an Authorization: Bearer header of the upgrade (the CLI sends nothing in the URL)', async () => {
    await expect(BridgeClient.connect(port, { token: `${TEST_TOKEN}x`, bearer: true })).rejects.toThrow('HTTP 401');
    const client = await BridgeClient.connect(port, { bearer: true });
    expect(await client.call('app.info', {})).toMatchObject({ ok: true });
    client.close();
  });

  it('serves the contract to an authorized page', async () => {
    const client = await BridgeClient.connect(port);
    const info = await client.call('app.info', {});
    expect(info).toMatchObject({
      ok: true,
      result: { mode: 'browser', version: '0.0.0-test', secretBackend: { kind: 'file', secure: false } },
    });
    client.close();
    const viaLocalhost = await BridgeClient.connect(port, {
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
    });
    expect((await viaLocalhost.call('servers.list', {})).ok).toBe(true);
    viaLocalhost.close();
  });

  it('listens on the loopback address only', () => {
    expect(running.host.url).toBe(`http://127.0.0.1:${port}/`);
  });
});
