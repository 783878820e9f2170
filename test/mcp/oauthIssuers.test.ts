/**
 * OAuth registrations are kept per authorization server (SEP-2352): a protected resource that
 * names a new authorization server gets a registration of its own there, and one that moves back
 * finds its first registration again. And a refused token makes the next sign-in read the
 * resource's metadata afresh, rather than the kept discovery that names the old server.
 * (The end-to-end proof is the conformance suite's `auth/authorization-server-migration`, which
 * failed before: "no registration request was observed at the new AS".)
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/client';
import { MAX_REGISTRATIONS, OAuthCredentials } from '../../electron/mcp/oauth/credentials.js';
import type { OAuthServerConfig } from '../../electron/mcp/oauth/session.js';
import { OAuthSession } from '../../electron/mcp/oauth/session.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import { scratchDir } from '../helpers/fixtures.js';

const keyOf = (serverId: string, kind: string): string => `server/${serverId}/oauth.${kind}`;
const owner = { serverId: 'notes', uid: 'uid-notes-1', url: 'http://127.0.0.1:9/mcp' };
const registration = (clientId: string, issuer?: string) =>
  ({
    client_id: clientId,
    redirect_uris: ['http://127.0.0.1:1234/callback'],
    ...(issuer ? { issuer } : {}),
  }) as OAuthClientInformationMixed;

let scratch: ReturnType<typeof scratchDir>;
let store: FileSecretStore;
let credentials: OAuthCredentials;

beforeEach(() => {
  scratch = scratchDir('mh-oauth-issuers-');
  store = new FileSecretStore(join(scratch.dir, 'secrets.json'));
  credentials = new OAuthCredentials(store, keyOf);
});
afterEach(() => scratch.cleanup());

describe('client registrations keyed by authorization server', () => {
  it('a registration with a second authorization server keeps the first; each is presented to its own issuer only', async () => {
    await credentials.saveClient(owner, registration('at-a', 'https://a.example'));
    await credentials.saveClient(owner, registration('at-b', 'https://b.example'));
    expect((await credentials.clientFor(owner, 'https://a.example'))?.client_id).toBe('at-a');
    expect((await credentials.clientFor(owner, 'https://b.example'))?.client_id).toBe('at-b');
    expect(await credentials.clientFor(owner, 'https://c.example')).toBeUndefined();
    expect((await credentials.client(owner))?.client_id).toBe('at-b'); // the latest
  });

  it('a registration saved before issuers were recorded is offered once (the SDK stamps it); none is kept beyond the bound', async () => {
    await credentials.saveClient(owner, registration('unstamped'));
    expect((await credentials.clientFor(owner, 'https://a.example'))?.client_id).toBe('unstamped');
    for (let i = 0; i <= MAX_REGISTRATIONS; i++)
      await credentials.saveClient(owner, registration(`c${i}`, `https://as${i}.example`));
    expect(await credentials.clientFor(owner, 'https://as0.example')).toBeUndefined();
    expect((await credentials.clientFor(owner, `https://as${MAX_REGISTRATIONS}.example`))?.client_id).toBe(
      `c${MAX_REGISTRATIONS}`,
    );
  });

  it('the session presents the registration of the issuer the SDK names, and nothing for an unknown one', async () => {
    await credentials.saveClient(owner, registration('at-a', 'https://a.example'));
    const session = new OAuthSession({
      config: HttpServerConfigSchema.parse({
        id: owner.serverId,
        name: 'Notes',
        uid: owner.uid,
        transport: 'streamable_http',
        url: owner.url,
        auth: { kind: 'oauth' },
      }) as OAuthServerConfig,
      credentials,
      secrets: new DefaultSecretResolver(store),
      open: () => undefined,
    });
    await session.beginInteractive(); // a person is signing in: a missing registration may be made
    try {
      const info = (issuer: string) => session.provider.clientInformation({ issuer } as never);
      expect((await info('https://a.example'))?.client_id).toBe('at-a');
      expect(await info('https://b.example')).toBeUndefined();
    } finally {
      await session.endInteractive();
    }
  });
});

describe('a refused token: the next sign-in discovers afresh', () => {
  it('the kept discovery (naming the old authorization server) is dropped on a 401', async () => {
    const session = new OAuthSession({
      config: HttpServerConfigSchema.parse({
        id: owner.serverId,
        name: 'Notes',
        uid: owner.uid,
        transport: 'streamable_http',
        url: owner.url,
        auth: { kind: 'oauth' },
      }) as OAuthServerConfig,
      credentials,
      secrets: new DefaultSecretResolver(store),
      open: () => undefined,
    });
    await session.provider.saveDiscoveryState?.({ authorizationServerUrl: 'https://a.example' });
    expect((await session.provider.discoveryState?.())?.authorizationServerUrl).toBe('https://a.example');
    session.noteChallenge(
      401,
      'Bearer resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp"',
    );
    expect(await session.provider.discoveryState?.()).toBeUndefined();
  });
});
