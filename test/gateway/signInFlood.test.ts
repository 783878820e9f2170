/**
 * Open sign-in endpoints under a flood: any web page the person visits can send the browser to
 * the gateway's `/authorize` in a loop (no CORS is needed for that), and each visit starts a
 * sign-in that lasts minutes. The real app core and gateway over HTTP: a person's sign-in is
 * started, then MAX_PENDING_RECORDS more; what is kept in memory stays bounded — the oldest (the
 * person's) is gone and its consent page says so, while a sign-in started now is answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PENDING_RECORDS } from '../../electron/gateway/oauth/oauthStore.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { GatewayApp } from './support.js';
import { startGatewayApp } from './support.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

/** Opens `/authorize` as a fresh browser would; returns the consent page's URL and the browser's cookies. */
async function startSignIn(origin: string, clientId: string): Promise<{ consent: URL; cookies: string }> {
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'mcp',
    state: 's',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const response = await fetch(`${origin}/authorize?${query}`, { redirect: 'manual' });
  await response.arrayBuffer();
  expect(response.status).toBe(303);
  const cookies = response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  return { consent: new URL(response.headers.get('location') ?? '', origin), cookies };
}

describe('a flood of sign-ins started at /authorize', () => {
  const scratch = scratchDir('mh-gateway-signin-flood-');
  let app: GatewayApp;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
  }, 30_000);
  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('keeps at most MAX_PENDING_RECORDS in memory: the oldest sign-in is dropped, a new one is answered', async () => {
    const origin = app.url.origin;
    const registered = await fetch(`${origin}/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Flood', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const first = await startSignIn(origin, clientId);
    const page = (signIn: { consent: URL; cookies: string }) =>
      fetch(signIn.consent, { headers: { Cookie: signIn.cookies } });
    expect((await page(first)).status).toBe(200);
    // Ten at a time, as a page's requests would come.
    for (let sent = 0; sent < MAX_PENDING_RECORDS; sent += 10)
      await Promise.all(Array.from({ length: 10 }, () => startSignIn(origin, clientId)));
    const dropped = await page(first);
    expect(dropped.status).toBe(400);
    expect(await dropped.text()).toContain('This sign-in has expired');
    expect((await page(await startSignIn(origin, clientId))).status).toBe(200);
  }, 120_000);
});
