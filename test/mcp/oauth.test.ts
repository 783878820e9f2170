/**
 * OAuth 2.1 through the SDK's provider (electron/mcp/oauth/), against a real loopback
 * authorization server and the MCP server it protects (test/doubles/servers/oauth-server.ts):
 * browser sign-in with PKCE and a checked state, dynamic registration, refresh, step-up, the
 * background refusing to sign in on its own, a refused sign-in, a resource mismatch, sign-out.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HttpServerConfig } from '../../shared/serverConfig.js';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import { MCPClient } from '../../electron/mcp/client.js';
import { LogBuffer } from '../../electron/mcp/logBuffer.js';
import { OAuthCredentials } from '../../electron/mcp/oauth/credentials.js';
import { MCPOAuthError, MCPSignInRequiredError } from '../../electron/mcp/oauth/errors.js';
import { openLoopbackRedirect } from '../../electron/mcp/oauth/loopback.js';
import type { OAuthServerConfig } from '../../electron/mcp/oauth/session.js';
import { OAuthSession } from '../../electron/mcp/oauth/session.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import type { OAuthFixture, OAuthFixtureOptions } from '../doubles/servers/oauth-server.js';
import { startOAuthFixture } from '../doubles/servers/oauth-server.js';
import { startHttpFixture } from '../doubles/servers/http-server.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { HeadlessBrowser } from '../helpers/headlessBrowser.js';
import { headlessBrowser } from '../helpers/headlessBrowser.js';
import { testSandboxes } from '../helpers/sandboxes.js';

const keyOf = (serverId: string, kind: string): string => `server/${serverId}/oauth.${kind}`;

let scratch: ReturnType<typeof scratchDir>;
let fixture: OAuthFixture | undefined;
let store: FileSecretStore;
let browser: HeadlessBrowser;
const clients: MCPClient[] = [];
const sessions: OAuthSession[] = [];

beforeEach(() => {
  scratch = scratchDir('mh-oauth-');
  store = new FileSecretStore(join(scratch.dir, 'secrets.json'));
  browser = headlessBrowser();
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const session of sessions.splice(0)) await session.endInteractive();
  await fixture?.close();
  fixture = undefined;
  scratch.cleanup();
});

async function start(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
  fixture = await startOAuthFixture(options);
  return fixture;
}

function oauthConfig(url: string, auth: Partial<OAuthServerConfig['auth']> = {}): OAuthServerConfig {
  return HttpServerConfigSchema.parse({
    id: 'notes',
    name: 'Notes',
    uid: 'uid-notes-1',
    transport: 'streamable_http',
    url,
    timeoutMs: 10_000,
    auth: { kind: 'oauth', ...auth },
  }) as OAuthServerConfig;
}

function session(config: OAuthServerConfig): OAuthSession {
  const created = new OAuthSession({
    config,
    credentials: new OAuthCredentials(store, keyOf),
    secrets: new DefaultSecretResolver(store),
    open: (url) => browser.open(url),
    signInTimeoutMs: 10_000,
  });
  sessions.push(created);
  return created;
}

function client(config: HttpServerConfig, oauth?: OAuthSession, log = new LogBuffer()): MCPClient {
  const created = new MCPClient(config, {
    secrets: new DefaultSecretResolver(store),
    sandboxes: testSandboxes(),
    log,
    ...(oauth ? { oauth } : {}),
  });
  clients.push(created);
  return created;
}

async function signIn(
  config: OAuthServerConfig,
  oauth = session(config),
): Promise<{ oauth: OAuthSession; mcp: MCPClient }> {
  await oauth.beginInteractive();
  const mcp = client(config, oauth);
  await mcp.initialize();
  await oauth.endInteractive();
  return { oauth, mcp };
}

function storedTokens(): { tokens: { access_token: string; refresh_token?: string; scope?: string } } | undefined {
  const file = JSON.parse(readFileSync(join(scratch.dir, 'secrets.json'), 'utf8')) as {
    secrets: Record<string, string>;
  };
  const raw = file.secrets[keyOf('notes', 'tokens')];
  return raw
    ? (JSON.parse(raw) as { tokens: { access_token: string; refresh_token?: string; scope?: string } })
    : undefined;
}

/** Sends raw bytes of an HTTP request; resolves with the response's status line. */
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

describe('browser sign-in', () => {
  it('registers the app, authorizes with PKCE, a state and the resource, and keeps the tokens in the secret store only', async () => {
    const as = await start();
    const config = oauthConfig(as.url);
    const log = new LogBuffer();
    const oauth = session(config);
    await oauth.beginInteractive();
    const mcp = client(config, oauth, log);
    await mcp.initialize();
    await oauth.endInteractive();

    expect(as.registrations).toHaveLength(1);
    expect(as.registrations[0]?.redirect_uris[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(as.authorizations).toEqual([
      expect.objectContaining({ scopes: ['mcp:read'], resource: as.url, hasState: true }),
    ]);
    expect(browser.opened).toHaveLength(1);
    const opened = new URL(browser.opened[0] ?? '');
    expect(opened.searchParams.get('code_challenge_method')).toBe('S256');
    expect(opened.searchParams.get('state')?.length).toBeGreaterThan(30);
    expect(as.tokenRequests).toEqual([{ grant: 'authorization_code', scopes: ['mcp:read'] }]);

    const result = await mcp.callTool('whoami', {});
    expect(result.content[0]).toMatchObject({ text: `client ${as.registrations[0]?.client_id} with mcp:read` });
    // The token is in the secret store, bound to this server; the log never shows it.
    const [token] = as.accessTokens();
    expect(storedTokens()?.tokens.access_token).toBe(token?.token);
    expect(JSON.stringify(log.all())).not.toContain(token?.token);
    expect((await oauth.view()).signedIn).toBe(true);
  });

  it('a redirect with another state is refused and does not complete the sign-in', async () => {
    const listener = await openLoopbackRedirect();
    try {
      const outcome = listener.waitFor('the-real-state');
      let settled = false;
      void outcome.then(() => (settled = true));
      const forged = await fetch(`${listener.redirectUrl}?code=stolen&state=forged`);
      expect(forged.status).toBe(400);
      expect(await forged.text()).not.toContain('stolen');
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      // Nor do a foreign Host or a request target that is not a URL end or complete anything.
      expect(
        (
          await rawRequest(
            listener.port,
            'GET /callback?code=x&state=the-real-state HTTP/1.1\r\nHost: evil.example.com\r\n\r\n',
          )
        ).split(' ')[1],
      ).toBe('404');
      expect(await rawRequest(listener.port, 'GET http://[::1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatch(
        /^HTTP\/1\.1 4\d\d/,
      );
      const real = await fetch(`${listener.redirectUrl}?code=good&state=the-real-state`);
      expect(real.status).toBe(200);
      await expect(outcome).resolves.toEqual({ code: 'good' });
    } finally {
      await listener.close();
    }
  });

  /** A sign-in with a person at the browser that fails: the OAuth error it fails with. */
  async function failedSignIn(options: OAuthFixtureOptions): Promise<{ as: OAuthFixture; error: MCPOAuthError }> {
    const as = await start(options);
    const config = oauthConfig(as.url);
    const oauth = session(config);
    await oauth.beginInteractive();
    const error = await client(config, oauth)
      .initialize()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPOAuthError);
    return { as, error: error as MCPOAuthError };
  }

  it('a sign-in refused at the authorization server fails as denied, with its error code', async () => {
    const { as, error } = await failedSignIn({ deny: true });
    expect(error.details.oauth).toEqual({ reason: 'denied', oauthError: 'access_denied' });
    expect(as.tokenRequests).toEqual([]);
  });

  it('a redirect naming another issuer (RFC 9207) is refused before the code is exchanged', async () => {
    const as = await start({ redirectIss: 'https://evil.example.com' });
    const config = oauthConfig(as.url);
    const oauth = session(config);
    await oauth.beginInteractive();
    const error = await client(config, oauth)
      .initialize()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPOAuthError);
    expect((error as MCPOAuthError).details.oauth).toEqual({ reason: 'issuer_mismatch' });
    expect(as.authorizations).toHaveLength(1);
    expect(as.tokenRequests).toEqual([]);
    expect(storedTokens()).toBeUndefined();
  });

  it('a redirect naming its own issuer signs in', async () => {
    const as = await start({ redirectIss: 'self' });
    const config = oauthConfig(as.url);
    const oauth = session(config);
    await oauth.beginInteractive();
    const mcp = client(config, oauth);
    await mcp.initialize();
    expect(as.tokenRequests).toEqual([{ grant: 'authorization_code', scopes: ['mcp:read'] }]);
    expect((await mcp.callTool('whoami', {})).isError).toBe(false);
  });

  it('metadata naming another resource is refused before any authorization request', async () => {
    const { as, error } = await failedSignIn({ resourceOverride: 'https://evil.example.com/mcp' });
    expect(error.details.oauth).toEqual({ reason: 'resource_mismatch', resource: 'https://evil.example.com/mcp' });
    expect(as.authorizations).toEqual([]);
    expect(browser.opened).toEqual([]);
  });
});

describe('without a person', () => {
  it('a server never signed in says "sign in": nothing is registered and no browser opens', async () => {
    const as = await start();
    const config = oauthConfig(as.url);
    const error = await client(config, session(config))
      .initialize()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPSignInRequiredError);
    expect((error as MCPSignInRequiredError).details.oauth).toEqual({ reason: 'no_token' });
    expect(as.registrations).toEqual([]);
    expect(browser.opened).toEqual([]);
  });

  it('an expired token is refreshed without a browser, and the new one replaces it in the store', async () => {
    const as = await start();
    const config = oauthConfig(as.url);
    const { oauth, mcp: signedIn } = await signIn(config);
    await signedIn.close(); // the sign-in's connection is gone before its token expires
    const first = storedTokens()?.tokens;
    as.expireAccessTokens();

    // A later connection (a reconnect, the next start): nobody at the browser.
    const mcp = client(config, oauth);
    await mcp.initialize();
    const result = await mcp.callTool('whoami', {});
    expect(result.isError).toBe(false);
    expect(as.tokenRequests.map((t) => t.grant)).toEqual(['authorization_code', 'refresh_token']);
    expect(browser.opened).toHaveLength(1);
    const second = storedTokens()?.tokens;
    expect(second?.access_token).not.toBe(first?.access_token);
    expect(second?.refresh_token).not.toBe(first?.refresh_token);
  });

  it('two refreshes of one refresh token at once become one request (a rotated token works once)', async () => {
    const as = await start();
    const config = oauthConfig(as.url);
    const { oauth } = await signIn(config);
    const stored = storedTokens()?.tokens;
    const body = (): URLSearchParams =>
      new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: stored?.refresh_token ?? '',
        client_id: as.registrations[0]?.client_id ?? '',
      });
    const refreshFetch = oauth.coalescingFetch(fetch);
    // Two requests refused at once each run the SDK's auth(): both refresh with the same token.
    const answers = await Promise.all([
      refreshFetch(`${as.issuer}/token`, { method: 'POST', body: body() }),
      refreshFetch(`${as.issuer}/token`, { method: 'POST', body: body() }),
    ]);
    const tokens = (await Promise.all(answers.map((a) => a.json()))) as Array<{ access_token: string }>;
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(tokens[0]?.access_token).toBe(tokens[1]?.access_token);
    expect(as.tokenRequests.filter((t) => t.grant === 'refresh_token')).toHaveLength(1);
  });

  it('a request that needs more scopes is refused with the scopes, not run, and the next sign-in asks for them', async () => {
    const as = await start();
    const config = oauthConfig(as.url);
    const { oauth, mcp } = await signIn(config);

    const error = await mcp.callTool('write_note', { text: 'hello' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPSignInRequiredError);
    expect((error as MCPSignInRequiredError).details.oauth).toEqual({
      reason: 'insufficient_scope',
      scope: 'mcp:read mcp:write',
    });
    expect(as.notes).toEqual([]);
    expect((await oauth.view()).requiredScope).toBe('mcp:read mcp:write');

    // Signing in again asks at once for what the refused request needed.
    await oauth.clearTokens();
    const again = await signIn(config, oauth);
    expect(as.authorizations.at(-1)?.scopes).toEqual(['mcp:read', 'mcp:write']);
    await again.mcp.callTool('write_note', { text: 'hello' });
    expect(as.notes).toEqual(['hello']);
  });
});

describe('step-up with a person at the browser', () => {
  it('a 403 insufficient_scope opens the browser for more scopes, then runs the request once', async () => {
    const as = await start();
    const config = oauthConfig(as.url);
    const oauth = session(config);
    await oauth.beginInteractive();
    const mcp = client(config, oauth);
    await mcp.initialize();
    await mcp.callTool('write_note', { text: 'stepped up' });

    expect(as.notes).toEqual(['stepped up']);
    expect(as.authorizations.map((a) => a.scopes)).toEqual([['mcp:read'], ['mcp:read', 'mcp:write']]);
    expect(browser.opened).toHaveLength(2);
    expect(storedTokens()?.tokens.scope).toBe('mcp:read mcp:write');
  });
});

describe('sign-out and bindings', () => {
  it('sign-out deletes the tokens from the store; the next connection says "signed out"', async () => {
    const as = await start();
    const config = oauthConfig(as.url);
    const { oauth } = await signIn(config);
    expect(storedTokens()).toBeDefined();

    await oauth.signOut();
    expect(storedTokens()).toBeUndefined();
    expect((await oauth.view()).signedIn).toBe(false);
    const error = await client(config, oauth)
      .initialize()
      .catch((e: unknown) => e);
    expect((error as MCPSignInRequiredError).details.oauth).toEqual({ reason: 'signed_out' });
  });

  it('tokens saved for one URL are never sent to another', async () => {
    const as = await start();
    await signIn(oauthConfig(as.url));
    const other = await startHttpFixture();
    try {
      const moved = oauthConfig(other.url);
      await client(moved, session(moved))
        .initialize()
        .catch(() => undefined);
      expect(other.authHeaders.every((header) => header === '')).toBe(true);
      expect(storedTokens()).toBeUndefined(); // the record of the old URL was dropped
    } finally {
      await other.close();
    }
  });
});

describe('a server that is not set up for OAuth', () => {
  it('a 401 with an OAuth challenge says "sign in", typed', async () => {
    const as = await start();
    const config = HttpServerConfigSchema.parse({
      id: 'plain',
      name: 'Plain',
      transport: 'streamable_http',
      url: as.url,
      timeoutMs: 10_000,
    });
    const error = await client(config)
      .initialize()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPSignInRequiredError);
    expect((error as MCPSignInRequiredError).details.oauth).toEqual({ reason: 'not_configured' });
  });

  it('a 401 without one still says the token was refused', async () => {
    const plain = await startHttpFixture({ token: 'right' });
    try {
      const config = HttpServerConfigSchema.parse({
        id: 'plain',
        name: 'Plain',
        transport: 'streamable_http',
        url: plain.url,
        timeoutMs: 10_000,
      });
      const error = await client(config)
        .initialize()
        .catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe('auth');
    } finally {
      await plain.close();
    }
  });
});
