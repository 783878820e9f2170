/**
 * One OAuth issuer for the agent gateway across instances (`gateway.publicUrl`): two `miniharness
 * serve` instances on one PostgreSQL behind nginx, one address for people and agents routed as
 * examples/team/nginx-two-instances.conf routes it (test/serve/nginx.ts teamBalancerConf). An
 * agent (the v2 SDK client, its OAuth provider in memory) signs in through the balancer's address —
 * the person's consent answered over HTTP, as agentSignIn.test.ts does — and its access token is
 * accepted by both instances; the instance it signed in through goes away, and the agent refreshes
 * its token through the balancer (now the other instance) and goes on. Before: each instance was its
 * own issuer (`http://127.0.0.1:<its port>`), its tokens for its own resource only.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OAuthTokens } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { GATEWAY_PATH } from '../../shared/agents.js';
import { scratchDir, waitFor } from '../helpers/fixtures.js';
import { freePort } from '../gateway/ports.js';
import { Browser, MemoryOAuthClient, consentForm } from '../gateway/signInHelpers.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase } from '../storage/postgres.js';
import type { Nginx } from './nginx.js';
import { describeBalanced, startNginx, teamBalancerConf } from './nginx.js';
import type { TestServe } from './serveHarness.js';
import { postInitialize, startTestServe } from './serveHarness.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

describeBalanced('agents’ OAuth through a balancer: one issuer for both instances', () => {
  const scratch = scratchDir('mh-oauth-lb-');
  let database: TestDatabase;
  let nginx: Nginx;
  let balancer: URL;
  const gatewayPorts: number[] = [];
  const serves: TestServe[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('oauthlb');
    balancer = new URL(`http://127.0.0.1:${await freePort()}`);
    for (const name of ['a', 'b']) {
      const port = await freePort();
      gatewayPorts.push(port);
      serves.push(
        await startTestServe(join(scratch.dir, name), undefined, {
          databaseUrl: database.url,
          publicUrl: balancer.origin,
          trustedProxies: ['127.0.0.1'],
          listen: { host: '127.0.0.1', port: await freePort() },
          gateway: { port, publicUrl: balancer.origin },
        }),
      );
    }
    // One address for people and agents, routed as examples/team/nginx-two-instances.conf routes it.
    const dir = join(scratch.dir, 'nginx');
    nginx = startNginx(
      dir,
      teamBalancerConf(
        dir,
        Number(balancer.port),
        serves.map((s) => s.port),
        gatewayPorts as [number, number],
      ),
    );
    await waitFor(
      async () =>
        (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', balancer)).catch(() => undefined))?.ok ===
        true,
      15_000,
    );
  }, 90_000);
  afterAll(async () => {
    nginx?.stop();
    for (const serve of serves) await serve.serving.shutdown();
    await database?.drop();
    scratch.cleanup();
  });

  it('signs in through the balancer, is accepted by both, refreshes through the other instance and goes on', async () => {
    const mcp = new URL(GATEWAY_PATH, balancer);
    const provider = new MemoryOAuthClient({ redirectUrl: REDIRECT, clientName: 'balanced-agent' });
    const client = new Client({ name: 'balanced-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await expect(
      client.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    // The one issuer is the balancer's address, whichever instance answered.
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.origin).toBe(balancer.origin);
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcp.href);
    const browser = new Browser();
    const consent = await browser.navigate(authorizationUrl);
    const { action, csrf } = consentForm(await consent.response.text());
    const back = await browser.navigate(new URL(action, balancer), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: balancer.origin },
      body: `csrf=${csrf}&decision=allow&scope=all`,
    });
    expect(back.url.origin + back.url.pathname).toBe(REDIRECT);
    await new StreamableHTTPClientTransport(mcp, { authProvider: provider }).finishAuth(back.url.searchParams);
    const first = provider.stored as OAuthTokens;
    expect(first.refresh_token).toBeTruthy();

    // Both instances accept the token (issued for the balancer's /mcp).
    for (const port of gatewayPorts)
      expect((await postInitialize(`http://127.0.0.1:${port}${GATEWAY_PATH}`, first.access_token)).status).toBe(200);

    // The instance that issued it (nginx sends requests without Authorization to one) goes away.
    await waitFor(() => readFileSync(join(scratch.dir, 'nginx', 'access.log'), 'utf8').includes(' /token'));
    const tokenLine = readFileSync(join(scratch.dir, 'nginx', 'access.log'), 'utf8')
      .split('\n')
      .find((line) => line.endsWith(' /token')) as string;
    const issuedBy = gatewayPorts.findIndex((port) => tokenLine.startsWith(`127.0.0.1:${port} `));
    expect(issuedBy).toBeGreaterThanOrEqual(0);
    await serves[issuedBy]?.serving.shutdown();

    // The refresh goes through the balancer to the other instance, which honours it.
    const clientId = (provider.info as { client_id: string }).client_id;
    const refreshed = await fetch(new URL('/token', balancer), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token as string,
        client_id: clientId,
      }),
    });
    expect(refreshed.status, await refreshed.clone().text()).toBe(200);
    provider.saveTokens((await refreshed.json()) as OAuthTokens);
    expect(provider.stored?.access_token).not.toBe(first.access_token);

    // The agent goes on with its new token, through the balancer.
    const log = (): string => readFileSync(join(scratch.dir, 'nginx', 'access.log'), 'utf8');
    const before = log().length;
    const again = new Client({ name: 'balanced-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await again.connect(new StreamableHTTPClientTransport(mcp, { authProvider: provider }));
    expect(Array.isArray((await again.listTools()).tools)).toBe(true);
    await again.close();
    // Answered by the other instance (a line names every upstream tried: the stopped one may come first, refused).
    const answeredBy = (port: number | undefined) => new RegExp(`127\\.0\\.0\\.1:${port} 2\\d\\d /mcp`);
    await waitFor(() => answeredBy(gatewayPorts[1 - issuedBy]).test(log().slice(before)));
    expect(log().slice(before)).not.toMatch(answeredBy(gatewayPorts[issuedBy]));
  });
});
