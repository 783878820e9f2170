/**
 * A sign-in whose store fails (serve on PostgreSQL, the database not answering): the person is
 * told it was MiniHarness that could not keep the sign-in — a SignInRefusal with a sentence —
 * not that the identity provider failed (the sentence the login route gives any other error). And
 * what a pending sign-in gives its store (a database on PostgreSQL): the bootstrap token's SHA-256, never the token.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingSignIns } from '../../electron/serve/oidcSignIn.js';
import { MemoryPendingSignIns, OidcSignIn, SignInRefusal } from '../../electron/serve/oidcSignIn.js';
import { hashToken } from '../../electron/security/tokenHash.js';
import type { TeamIdp } from '../doubles/oidc/teamIdp.js';
import { startTeamIdp } from '../doubles/oidc/teamIdp.js';

const down = (): Promise<never> => Promise.reject(Object.assign(new Error('connection terminated'), { code: '57P01' }));
const failing: PendingSignIns = { put: down, take: down };

describe('a sign-in whose store fails', () => {
  let idp: TeamIdp;
  let oidc: OidcSignIn;
  beforeAll(async () => {
    idp = await startTeamIdp({ alice: { email: 'alice@team.example', name: 'Alice' } });
    oidc = new OidcSignIn({
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      publicUrl: () => 'http://127.0.0.1:9',
      secure: false,
      pending: failing,
    });
  });
  afterAll(() => idp?.close());

  it('is refused with MiniHarness’s own sentence when it cannot be saved or read', async () => {
    const res = { writeHead: () => res, end: () => res } as unknown as ServerResponse;
    const start = oidc.start(res, undefined);
    await expect(start).rejects.toBeInstanceOf(SignInRefusal);
    await expect(start).rejects.toThrow('MiniHarness could not save this sign-in right now');
    const callback = {
      url: '/auth/callback?code=c&state=s1',
      headers: { cookie: 'miniharness-signin=s1' },
    } as unknown as IncomingMessage;
    await expect(oidc.finish(callback)).rejects.toThrow('MiniHarness could not read this sign-in right now');
  });

  it('keeps the bootstrap token it carries as its SHA-256 only', async () => {
    const kept: string[] = [];
    const memory = new MemoryPendingSignIns();
    const recording: PendingSignIns = {
      put: (state, pending, ttlMs) => {
        kept.push(JSON.stringify(pending));
        return memory.put(state, pending, ttlMs);
      },
      take: (state) => memory.take(state),
    };
    const signIn = new OidcSignIn({
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      publicUrl: () => 'http://127.0.0.1:9',
      secure: false,
      pending: recording,
    });
    const res = { writeHead: () => res, end: () => res, setHeader: () => res } as unknown as ServerResponse;
    const bootstrap = 'bootstrap-token-0123456789abcdef';
    await signIn.start(res, bootstrap);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toContain(hashToken(bootstrap));
    expect(kept[0]).not.toContain(bootstrap);
  });
});
