/**
 * An agent signs in with a Client ID Metadata Document: its client_id is an https URL on a public
 * host, which the gateway's authorization server fetches for the client's metadata instead of a
 * registration. A loopback test cannot serve that host over https, so the core's
 * `gateway.fetchClientMetadata` answers the fetch (the exact URL, anything else fails); the answer
 * still goes through the gateway's JSON-only check. The real app core and gateway over a scratch
 * data folder; a v2 SDK Client given only the gateway's URL and a `clientMetadataUrl` (no
 * registration); this test is the person's browser over HTTP, and the client's redirect URI is a
 * loopback server it listens on. The token works on the gateway, and the Agents view lists the
 * agent by the document's client_name, signed in. A document whose client_id is not its URL, or
 * one served as text/html, is refused on an error page, and no agent is created.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthTokens } from '@modelcontextprotocol/client';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { AgentsView } from '../../shared/agents.js';
import { scratchDir } from '../helpers/fixtures.js';
import { Browser, MemoryOAuthClient, consentForm } from './signInHelpers.js';
import type { GatewayApp } from './support.js';
import { addFixtureServer, startGatewayApp } from './support.js';

const CLIENT_ID = 'https://agent.example.com/oauth/client.json';
const WRONG_ID_URL = 'https://agent.example.com/oauth/wrong-id.json';
const HTML_URL = 'https://agent.example.com/oauth/as-html.json';
const CLIENT_NAME = 'Published <Agent>';
const PKCE = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };

/** The metadata document published at `url` (its client_id as given). */
function documentFor(clientId: string, redirect: string): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: CLIENT_NAME,
    redirect_uris: [redirect],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

describe('an agent signs in with a Client ID Metadata Document (the fetch answered by the test)', () => {
  const scratch = scratchDir('mh-gateway-cimd-');
  let app: GatewayApp;
  let origin: string;
  /** The client's redirect URI: a loopback server this test listens on; it records what each request brought. */
  let callback: Server;
  let redirect: string;
  const arrived: URL[] = [];
  /** What the authorization server fetched, in order. */
  const fetched: Array<{ url: string; accept: string | null }> = [];

  /** The public host, as the test plays it: each document at its exact URL; anything else fails like an unreachable host. */
  const fetchClientMetadata = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    fetched.push({ url, accept: new Headers(init?.headers).get('accept') });
    if (url === CLIENT_ID) return Promise.resolve(Response.json(documentFor(CLIENT_ID, redirect)));
    if (url === WRONG_ID_URL) return Promise.resolve(Response.json(documentFor(CLIENT_ID, redirect)));
    if (url === HTML_URL)
      return Promise.resolve(
        new Response(JSON.stringify(documentFor(HTML_URL, redirect)), {
          headers: { 'Content-Type': 'text/html; charset=utf-8' },
        }),
      );
    return Promise.reject(new TypeError('fetch failed'));
  };

  beforeAll(async () => {
    callback = createServer((req, res) => {
      arrived.push(new URL(req.url ?? '/', redirect));
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('You can close this window.');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirect = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    app = await startGatewayApp(scratch.dir, { gateway: { fetchClientMetadata } });
    origin = app.url.origin;
    await addFixtureServer(app, 'fx', {}, ['echo']);
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await new Promise<void>((resolve) => (callback ? callback.close(() => resolve()) : resolve()));
    scratch.cleanup();
  });

  async function signedInAgents() {
    return (await app.call<AgentsView>('agents.list')).agents.filter((a) => a.signIn);
  }
  async function agentIds(): Promise<string[]> {
    return (await app.call<AgentsView>('agents.list')).agents.map((a) => a.id);
  }

  it('a client whose client_id is its metadata URL signs in: consent names it, the code comes back to its loopback redirect, the token works, the Agents view lists it signed in', async () => {
    const provider = new MemoryOAuthClient({
      redirectUrl: redirect,
      clientName: CLIENT_NAME,
      clientMetadataUrl: CLIENT_ID,
    });
    const client = new Client({ name: 'cimd-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await expect(
      client.connect(new StreamableHTTPClientTransport(app.url, { authProvider: provider })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    // No registration: the SDK used the metadata URL as the client_id, as the server advertised it may.
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.origin).toBe(origin);
    expect(authorizationUrl.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${origin}/mcp`);
    expect(fetched).toEqual([]);

    const browser = new Browser();
    const consent = await browser.navigate(authorizationUrl);
    expect(consent.url.pathname).toMatch(/^\/consent\//);
    // The authorization server fetched the document, at its exact URL, asking for JSON.
    expect(fetched).toContainEqual({ url: CLIENT_ID, accept: 'application/json' });
    const html = await consent.response.text();
    expect(html).toContain('<strong>Published &#60;Agent&#62;</strong>');
    expect(html).toContain(`Its identity is published at <code>${CLIENT_ID}</code>.`);
    expect(html).toContain(`<code>${new URL(redirect).origin}</code>, a program on this computer`);
    const { action, csrf } = consentForm(html);
    const back = await browser.navigate(`${origin}${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin },
      body: `csrf=${csrf}&decision=allow&scope=chosen&server=fx`,
    });
    expect(back.url.origin + back.url.pathname).toBe(redirect);
    // The browser goes back to the client's loopback redirect, which receives the code.
    expect((await browser.request(back.url)).status).toBe(200);
    const returned = arrived.at(-1) as URL;
    expect(returned.searchParams.get('code')).toBeTruthy();
    expect(returned.searchParams.get('error')).toBeNull();

    await new StreamableHTTPClientTransport(app.url, { authProvider: provider }).finishAuth(returned.searchParams);
    const tokens = provider.stored as OAuthTokens;
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeTruthy();

    // The access token works on the gateway: a raw 2025 initialize, and the SDK client lists and calls.
    const initialize = await fetch(app.url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${tokens.access_token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(initialize.status).toBe(200);
    const connected = new Client({ name: 'cimd-agent', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await connected.connect(new StreamableHTTPClientTransport(app.url, { authProvider: provider }));
    expect((await connected.listTools()).tools.map((t) => t.name)).toContain('fx__echo');
    const result = (await connected.callTool({ name: 'fx__echo', arguments: { text: 'published' } })) as {
      content: Array<{ text: string }>;
    };
    expect(result.content[0]?.text).toBe('published');
    await connected.close();

    const agents = await signedInAgents();
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({
      name: 'Published Agent',
      visibility: { allServers: false, serverIds: ['fx'], localTools: false },
      signIn: { clientId: CLIENT_ID, clientName: CLIENT_NAME, redirectTarget: new URL(redirect).origin },
    });
    expect(agents[0]?.revokedAt).toBeUndefined();
  });

  /** An authorization request for `clientId`, as a browser would open it. */
  function authorize(clientId: string): Promise<Response> {
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirect,
      response_type: 'code',
      scope: 'mcp',
      state: 'cimd',
      resource: `${origin}/mcp`,
      ...PKCE,
    });
    return fetch(`${origin}/authorize?${query}`, { redirect: 'manual' });
  }

  it.each([
    ['whose client_id is not its own URL', WRONG_ID_URL],
    ['served as text/html (the JSON-only check)', HTML_URL],
  ])('a document %s is refused on an error page: no redirect, no agent', async (_case, url) => {
    const before = await agentIds();
    const response = await authorize(url);
    expect(fetched.some((f) => f.url === url)).toBe(true);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('This sign-in cannot go on');
    expect(await agentIds()).toEqual(before);
  });
});
