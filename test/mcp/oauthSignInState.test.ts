/**
 * The OAuth session's state tables (electron/mcp/oauth/signInState.ts): every cell of the sign-in
 * flow either leads where the table says or is refused; the refused ones are exactly the
 * browser redirect with no person here (or a grant with no browser step) and a second loopback
 * listener. Through a real session: the SDK asking to redirect in the background is refused as
 * "sign in", and nothing opens a browser.
 */
import { Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpServerConfigSchema } from '../../shared/serverConfig.js';
import { OAuthCredentials } from '../../electron/mcp/oauth/credentials.js';
import { MCPSignInRequiredError } from '../../electron/mcp/oauth/errors.js';
import type { LoopbackRedirect } from '../../electron/mcp/oauth/loopback.js';
import type { OAuthServerConfig } from '../../electron/mcp/oauth/session.js';
import { OAuthSession } from '../../electron/mcp/oauth/session.js';
import type { ActiveAuthorization, SignInEvent, SignInState } from '../../electron/mcp/oauth/signInState.js';
import { SIGN_IN_TABLE, STANDING_TABLE, nextSignInState } from '../../electron/mcp/oauth/signInState.js';
import { FileSecretStore } from '../../electron/secrets/fileSecretStore.js';
import { DefaultSecretResolver } from '../../electron/secrets/resolver.js';
import { scratchDir } from '../helpers/fixtures.js';

const listener: LoopbackRedirect = {
  redirectUrl: 'http://127.0.0.1:1/callback',
  port: 1,
  waitFor: () => new Promise(() => undefined),
  close: () => Promise.resolve(),
};
const pending: ActiveAuthorization = {
  url: 'https://as.example/authorize',
  abort: new AbortController(),
  code: () => new Promise(() => undefined),
};
const STATES: SignInState[] = [
  { phase: 'background' },
  { phase: 'interactive' },
  { phase: 'listening', listener },
  { phase: 'awaiting_browser', listener, pending },
];
const EVENTS: SignInEvent[] = [
  { type: 'begin' },
  { type: 'listen', listener },
  { type: 'redirect', pending },
  { type: 'settle' },
  { type: 'end' },
];

describe('the sign-in flow table', () => {
  it('refuses exactly the transitions no row allows', () => {
    const refused: string[] = [];
    for (const state of STATES)
      for (const event of EVENTS) {
        const next = nextSignInState(state, event);
        if (next === undefined) refused.push(`${state.phase} + ${event.type}`);
        else expect(next.phase, `${state.phase} + ${event.type}`).toBe(SIGN_IN_TABLE[state.phase][event.type]);
      }
    expect(refused).toEqual([
      'background + redirect',
      'interactive + listen',
      'interactive + redirect',
      'listening + listen',
      'awaiting_browser + listen',
    ]);
  });

  it('a browser sign-in keeps its listener; settling it keeps listening, ending drops both', () => {
    const waiting = nextSignInState({ phase: 'listening', listener }, { type: 'redirect', pending });
    expect(waiting).toEqual({ phase: 'awaiting_browser', listener, pending });
    expect(nextSignInState(waiting!, { type: 'settle' })).toEqual({ phase: 'listening', listener });
    expect(nextSignInState(waiting!, { type: 'end' })).toEqual({ phase: 'background' });
  });

  it('the standing: sign-out wins until a person signs in again; refused tokens until new ones are saved', () => {
    expect(STANDING_TABLE.fresh.tokens_refused).toBe('token_rejected');
    expect(STANDING_TABLE.token_rejected.begin).toBe('token_rejected');
    expect(STANDING_TABLE.token_rejected.tokens_saved).toBe('fresh');
    expect(STANDING_TABLE.signed_out.tokens_refused).toBe('signed_out');
    expect(STANDING_TABLE.signed_out.begin).toBe('fresh');
  });
});

describe('a session refuses what its flow does not allow', () => {
  let scratch: ReturnType<typeof scratchDir>;
  const opened: string[] = [];
  let session: OAuthSession;

  function build(grant: 'authorization_code' | 'client_credentials'): OAuthSession {
    const store = new FileSecretStore(join(scratch.dir, 'secrets.json'));
    const config = HttpServerConfigSchema.parse({
      id: 'notes',
      name: 'Notes',
      uid: 'uid-notes-1',
      transport: 'streamable_http',
      url: 'http://127.0.0.1:9/mcp',
      auth: {
        kind: 'oauth',
        grant,
        ...(grant === 'client_credentials'
          ? { clientId: 'app', clientSecret: { source: 'env', name: 'NOTES_SECRET' } }
          : {}),
      },
    }) as OAuthServerConfig;
    return new OAuthSession({
      config,
      credentials: new OAuthCredentials(store, (id, kind) => `server/${id}/oauth.${kind}`),
      secrets: new DefaultSecretResolver(store),
      open: (url) => void opened.push(url),
    });
  }

  beforeEach(() => {
    scratch = scratchDir('mh-oauth-state-');
    opened.length = 0;
  });
  afterEach(async () => {
    await session.endInteractive();
    scratch.cleanup();
  });

  it('a redirect with no person here is "sign in", and no browser opens', async () => {
    session = build('authorization_code');
    const url = new URL('https://as.example/authorize?state=s&scope=notes.read');
    await expect(session.provider.redirectToAuthorization(url)).rejects.toBeInstanceOf(MCPSignInRequiredError);
    // After a sign-in ended, the same.
    await session.beginInteractive();
    await session.endInteractive();
    await expect(session.provider.redirectToAuthorization(url)).rejects.toMatchObject({
      code: 'sign_in_required',
      reason: 'no_token',
    });
    expect(opened).toEqual([]);
    expect((await session.view()).authorizationUrl).toBeUndefined();
  });

  it('a grant with no browser step refuses a redirect even while a person is here', async () => {
    session = build('client_credentials');
    await session.beginInteractive();
    await expect(
      session.provider.redirectToAuthorization(new URL('https://as.example/authorize?state=s')),
    ).rejects.toBeInstanceOf(MCPSignInRequiredError);
    expect(opened).toEqual([]);
  });

  it('two Sign in at once keep one loopback redirect open, and ending closes it', async () => {
    session = build('authorization_code');
    // Every server the session starts listening (the loopback redirect is a node:http server); the spy calls through.
    const listen = vi.spyOn(Server.prototype, 'listen');
    let listening: Server[];
    try {
      await Promise.all([session.beginInteractive(), session.beginInteractive()]);
    } finally {
      listening = [...listen.mock.contexts] as Server[];
      listen.mockRestore();
    }
    expect(listening).toHaveLength(2);
    expect(listening.filter((server) => server.listening)).toHaveLength(1);
    await session.endInteractive();
    expect(listening.filter((server) => server.listening)).toEqual([]);
  });
});
