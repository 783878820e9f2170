/**
 * Agents sign in instead of copying tokens: the real app core and gateway over a scratch data
 * folder; a v2 SDK Client given only the gateway's URL, with an OAuthClientProvider, is refused
 * (401 + resource_metadata), discovers, registers, and sends its user to the authorization URL.
 * This test is the person's browser, over HTTP (cookies kept, redirects followed by hand): it opens
 * the consent page, which names the client, and posts Allow with the page's CSRF secret. The client
 * exchanges the code, lists and calls tools, refreshes (the old refresh token is then refused), and
 * is refused with MiniHarness's sentence once the person revokes the agent. Also: a wrong static
 * token, registration, PKCE missing, another resource, and consent posts without the CSRF secret
 * or from another origin; a client that refreshes again and again keeps the sign-in file bounded.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthTokens } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { AgentView, AgentsView } from '../../shared/agents.js';
import { MAX_TOKENS_PER_GRANT } from '../../electron/gateway/oauth/oauthStore.js';
import { scratchDir } from '../helpers/fixtures.js';
import { Browser, MemoryOAuthClient, consentForm } from './signInHelpers.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, connectAgent, startGatewayApp } from './support.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const SENTENCE = "MiniHarness refused this agent's token";

describe('an agent signs in with OAuth (the v2 SDK client, the consent answered over HTTP)', () => {
  const scratch = scratchDir('mh-gateway-oauth-');
  let app: GatewayApp;
  let origin: string;

  beforeAll(async () => {
    app = await startGatewayApp(scratch.dir);
    origin = app.url.origin;
    await addFixtureServer(app, 'fx', {}, ['echo']);
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    scratch.cleanup();
  });

  it('a request without credentials gets the challenge naming the protected-resource metadata; the OAuth probes are answered', async () => {
    const response = await fetch(app.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    const prm = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    expect(prm).toMatchObject({
      resource: `${origin}/mcp`,
      authorization_servers: [expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/?$/)],
    });
    const as = await fetch(`${origin}/.well-known/oauth-authorization-server`);
    expect(as.status).toBe(200);
    expect(as.headers.get('access-control-allow-origin')).toBe('*');
    const metadata = (await as.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: origin,
      registration_endpoint: `${origin}/register`,
      token_endpoint: `${origin}/token`,
      revocation_endpoint: `${origin}/revoke`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
    expect((await fetch(`${origin}/.well-known/openid-configuration`)).status).toBe(200);
  });

  it('a wrong static token is refused as invalid_token with MiniHarness’s sentence, in the header and the JSON-RPC body', async () => {
    const response = await fetch(app.url, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer mhg_wrong',
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`error_description="${SENTENCE}`);
    expect(challenge).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain(SENTENCE); // A client that shows the answer's body (the v1 SDK) shows the sentence, not an OAuth failure.
    await expect(connectAgent(app.url, 'mhg_wrong')).rejects.toThrow(SENTENCE);
  });

  it('registers a public client dynamically (RFC 7591)', async () => {
    const response = await fetch(`${origin}/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'http://localhost:6274' },
      body: JSON.stringify({
        client_name: 'Raw',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
      }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const client = (await response.json()) as Record<string, unknown>;
    expect(client).toMatchObject({ client_name: 'Raw', token_endpoint_auth_method: 'none' });
    expect(client.client_secret).toBeUndefined();
  });

  async function registered(): Promise<string> {
    const response = await fetch(`${origin}/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Raw', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
    });
    return ((await response.json()) as { client_id: string }).client_id;
  }

  it('refuses an authorization without PKCE, and one for another resource', async () => {
    const clientId = await registered();
    const base = { client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'mcp', state: 's1' };
    const noPkce = await fetch(`${origin}/authorize?${new URLSearchParams({ ...base, resource: `${origin}/mcp` })}`, {
      redirect: 'manual',
    });
    const noPkceTo = new URL(noPkce.headers.get('location') ?? '');
    expect(noPkceTo.origin + noPkceTo.pathname).toBe(REDIRECT);
    expect(noPkceTo.searchParams.get('error')).toBe('invalid_request');
    expect(noPkceTo.searchParams.get('error_description')).toMatch(/PKCE/);
    const pkce = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };
    const other = await fetch(
      `${origin}/authorize?${new URLSearchParams({ ...base, ...pkce, resource: 'https://elsewhere.example/mcp' })}`,
      { redirect: 'manual' },
    );
    expect(new URL(other.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_target');
  });

  it('a client_id metadata document that cannot be fetched safely (here: a loopback address) is refused on an error page, no redirect', async () => {
    const clientId = 'https://127.0.0.1:1/client.json';
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'mcp',
      state: 's3',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const response = await fetch(`${origin}/authorize?${query}`, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await response.text()).toContain('This sign-in cannot go on');
  });

  it('refuses a consent answer without the page’s CSRF secret, or from another origin; Deny sends access_denied', async () => {
    const clientId = await registered();
    const browser = new Browser();
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'mcp',
      state: 's2',
      resource: `${origin}/mcp`,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const { response, url } = await browser.navigate(`${origin}/authorize?${query}`);
    expect(url.pathname).toMatch(/^\/consent\//);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const { action, csrf } = consentForm(await response.text());
    const post = (body: string, from: string) =>
      browser.request(`${origin}${action}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: from },
        body,
      });
    expect((await post('decision=allow&scope=all', origin)).status).toBe(403);
    expect((await post(`csrf=${csrf}&decision=allow&scope=all`, 'http://evil.example')).status).toBe(403);
    const denied = await browser.navigate(`${origin}${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin },
      body: `csrf=${csrf}&decision=deny`,
    });
    expect(denied.url.origin + denied.url.pathname).toBe(REDIRECT);
    expect(denied.url.searchParams.get('error')).toBe('access_denied');
    const view = await app.call<AgentsView>('agents.list');
    expect(view.agents.filter((a) => a.signIn)).toHaveLength(0);
  });

  /** One browser for every sign-in below, as a person's would be: a session left by one sign-in must not carry over to the next client. */
  const browser = new Browser();

  /** The whole sign-in of a v2 SDK client given only the URL, the consent answered Allow (chosen server fx); returns the consent page. */
  async function signIn(provider: MemoryOAuthClient): Promise<string> {
    const client = new Client({ name: 'oauth-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await expect(
      client.connect(new StreamableHTTPClientTransport(app.url, { authProvider: provider })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.origin).toBe(origin);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${origin}/mcp`);
    const consent = await browser.navigate(authorizationUrl);
    expect(consent.url.pathname).toMatch(/^\/consent\//);
    const html = await consent.response.text();
    const { action, csrf } = consentForm(html);
    const back = await browser.navigate(`${origin}${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin },
      body: `csrf=${csrf}&decision=allow&scope=chosen&server=fx`,
    });
    expect(back.url.origin + back.url.pathname).toBe(REDIRECT);
    expect(back.url.searchParams.get('code')).toBeTruthy();
    // Allowed but the code not redeemed yet: the agent is listed, and says its sign-in is not finished.
    expect((await signedIn(provider))?.signIn?.state).toBe('waiting');
    await new StreamableHTTPClientTransport(app.url, { authProvider: provider }).finishAuth(back.url.searchParams);
    expect(provider.stored?.refresh_token).toBeTruthy();
    expect((await signedIn(provider))?.signIn?.state).toBe('active');
    return html;
  }

  /** The agent this provider's client signed in as. */
  async function signedIn(provider: MemoryOAuthClient): Promise<AgentView | undefined> {
    const clientId = (provider.info as { client_id: string }).client_id;
    return (await app.call<AgentsView>('agents.list')).agents.find((a) => a.signIn?.clientId === clientId);
  }

  /** A 2025 initialize with the token, over raw HTTP. */
  function raw(token: string): Promise<Response> {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    return fetch(app.url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body,
    });
  }

  function refresh(provider: MemoryOAuthClient, refreshToken: string): Promise<Response> {
    const clientId = (provider.info as { client_id: string }).client_id;
    return fetch(`${origin}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
    });
  }

  describe('the full sign-in by a v2 SDK client', () => {
    const provider = new MemoryOAuthClient({ redirectUrl: REDIRECT, clientName: 'Test <Agent> App' });

    it('is sent to the consent page, which names the client; Allow creates the agent and the client connects, lists and calls', async () => {
      const html = await signIn(provider);
      expect(html).toContain('<strong>Test &#60;Agent&#62; App</strong>');
      expect(html).toContain('own claim');
      expect(html).toContain('<code>http://127.0.0.1:9</code>, a program on this computer');
      expect(html).toContain('value="fx"');

      const connected = new Client({ name: 'oauth-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await connected.connect(new StreamableHTTPClientTransport(app.url, { authProvider: provider }));
      const { tools } = await connected.listTools();
      expect(tools.map((t) => t.name)).toContain('fx__echo');
      const result = (await connected.callTool({ name: 'fx__echo', arguments: { text: 'signed in' } })) as {
        content: Array<{ text: string }>;
      };
      expect(result.content[0]?.text).toBe('signed in');
      await connected.close();

      const view = await app.call<AgentsView>('agents.list');
      const agent = view.agents.find((a) => a.signIn);
      expect(agent).toMatchObject({
        name: 'Test Agent App',
        visibility: { allServers: false, serverIds: ['fx'], localTools: false },
        signIn: { clientName: 'Test <Agent> App', redirectTarget: 'http://127.0.0.1:9' },
      });
    });

    it('refreshes with rotation: the new tokens work, the old refresh token is refused', async () => {
      const old = provider.stored as OAuthTokens;
      const refreshed = await refresh(provider, old.refresh_token as string);
      expect(refreshed.status).toBe(200);
      const fresh = (await refreshed.json()) as OAuthTokens;
      expect(fresh.refresh_token).not.toBe(old.refresh_token);
      provider.saveTokens(fresh);
      const client = new Client({ name: 'oauth-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(app.url, { authProvider: provider }));
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      const again = await refresh(provider, old.refresh_token as string);
      expect(again.status).toBe(400);
      expect(((await again.json()) as { error: string }).error).toBe('invalid_grant');
      // The reuse ended the grant (a sign of a stolen token): the agent no longer reads as signed in.
      expect((await signedIn(provider))?.signIn?.state).toBe('ended');
    });
  });

  it('once the person revokes a signed-in agent, its access token gets the sentence and its refresh token is refused', async () => {
    const provider = new MemoryOAuthClient({ redirectUrl: REDIRECT, clientName: 'Test <Agent> App' });
    await signIn(provider);
    const tokens = provider.stored as OAuthTokens;
    expect((await raw(tokens.access_token)).status).toBe(200);
    const view = await app.call<AgentsView>('agents.list');
    const agent = view.agents.find((a) => a.signIn && a.revokedAt === undefined && a.name === 'Test Agent App 2');
    expect(agent).toBeDefined();
    await app.call('agents.revoke', { id: agent!.id });
    const response = await raw(tokens.access_token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(`error_description="${SENTENCE}`);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(SENTENCE);
    const refused = await refresh(provider, tokens.refresh_token as string);
    expect(refused.status).toBe(400);
  });

  it('removing a signed-in agent also ends its grant: its access token and refresh token are refused', async () => {
    const provider = new MemoryOAuthClient({ redirectUrl: REDIRECT, clientName: 'Test <Agent> App' });
    await signIn(provider);
    const tokens = provider.stored as OAuthTokens;
    expect((await raw(tokens.access_token)).status).toBe(200);
    const view = await app.call<AgentsView>('agents.list');
    const agent = view.agents.find((a) => a.name === 'Test Agent App 3');
    expect(agent?.signIn).toBeDefined();
    await app.call('agents.remove', { id: agent!.id });
    expect((await raw(tokens.access_token)).status).toBe(401);
    expect((await refresh(provider, tokens.refresh_token as string)).status).toBe(400);
  });

  it('the sign-in endpoints check Host; token and registration answer a browser client’s CORS preflight', async () => {
    // fetch cannot send another Host: a raw request does, as a DNS-rebinding page's would arrive.
    const foreign = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${origin}/register`,
        { method: 'POST', headers: { Host: 'evil.example', 'Content-Type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(foreign).toBe(403);
    const preflight = await fetch(`${origin}/token`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:6274', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('a sign-in survives a restart on the same port (nothing of a token’s value on disk); on another port (a new issuer) its token is refused with the sentence', async () => {
    const provider = new MemoryOAuthClient({ redirectUrl: REDIRECT, clientName: 'Test <Agent> App' });
    await signIn(provider);
    const tokens = provider.stored as OAuthTokens;
    const file = readFileSync(join(app.dataDir, 'gateway-oauth.json'), 'utf8');
    expect(file).not.toContain(tokens.access_token);
    expect(file).not.toContain(tokens.refresh_token);

    const port = Number(app.url.port);
    await app.close();
    app = await startGatewayApp(scratch.dir, { gatewayPort: port });
    expect((await raw(tokens.access_token)).status).toBe(200);
    const refreshed = await refresh(provider, tokens.refresh_token as string);
    expect(refreshed.status).toBe(200);
    const fresh = (await refreshed.json()) as OAuthTokens;
    expect((await raw(fresh.access_token)).status).toBe(200);

    await app.close();
    app = await startGatewayApp(scratch.dir);
    origin = app.url.origin;
    expect(app.url.port).not.toBe(String(port));
    const moved = await raw(fresh.access_token);
    expect(moved.status).toBe(401);
    expect(moved.headers.get('www-authenticate')).toContain(`error_description="${SENTENCE}`);
  });
  it('refreshing again and again keeps the sign-in file bounded: at most MAX_TOKENS_PER_GRANT of each kind per grant; the newest tokens work', async () => {
    const provider = new MemoryOAuthClient({ redirectUrl: REDIRECT, clientName: 'Test <Agent> App' });
    await signIn(provider);
    const client = (provider.info as { client_id: string }).client_id;
    for (let i = 0; i < MAX_TOKENS_PER_GRANT * 3; i++) {
      const refreshed = await refresh(provider, (provider.stored as OAuthTokens).refresh_token as string);
      expect(refreshed.status).toBe(200);
      provider.saveTokens((await refreshed.json()) as OAuthTokens);
    }
    const records = Object.values(
      (
        JSON.parse(readFileSync(join(app.dataDir, 'gateway-oauth.json'), 'utf8')) as {
          records: Record<string, { payload: { kind: string; clientId: string } }>;
        }
      ).records,
    );
    for (const kind of ['AccessToken', 'RefreshToken'])
      expect(
        records.filter((r) => r.payload.kind === kind && r.payload.clientId === client).length,
      ).toBeLessThanOrEqual(MAX_TOKENS_PER_GRANT);
    expect((await raw((provider.stored as OAuthTokens).access_token)).status).toBe(200);
    expect((await refresh(provider, (provider.stored as OAuthTokens).refresh_token as string)).status).toBe(200);
  });
  it('a client given the gateway as http://localhost:<port>/mcp signs in too: the challenge names the metadata under the spelling it used', async () => {
    const provider = new MemoryOAuthClient({ redirectUrl: REDIRECT, clientName: 'Test <Agent> App' });
    const url = new URL(app.url.href.replace('127.0.0.1', 'localhost'));
    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${url.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    const client = new Client({ name: 'oauth-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await expect(
      client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${url.origin}/mcp`);
    const consent = await browser.navigate(authorizationUrl);
    const { action, csrf } = consentForm(await consent.response.text());
    const back = await browser.navigate(`${origin}${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin },
      body: `csrf=${csrf}&decision=allow&scope=all`,
    });
    await new StreamableHTTPClientTransport(url, { authProvider: provider }).finishAuth(back.url.searchParams);
    const connected = new Client({ name: 'oauth-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await connected.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    expect((await connected.listTools()).tools.length).toBeGreaterThan(0);
    await connected.close();
  });
});
