/**
 * People sign in with the team's identity provider: OpenID Connect's authorization code flow with
 * PKCE, state and nonce, by `openid-client` (a certified relying party; this file only carries
 * its values between the two requests). The pending sign-in is bound to the browser that started
 * it by a short-lived cookie (SameSite=Lax: it must come back on the provider's redirect), so a
 * callback link sent to someone else signs nobody in (login CSRF).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as client from 'openid-client';
import { hashToken } from '../security/tokenHash.js';
import { isLoopbackHost } from './listenPolicy.js';
import type { Person } from './people.js';
import { cookieOf } from './sessions.js';

/** A sign-in this instance refuses itself: its message is a sentence for the person. */
export class SignInRefusal extends Error {
  override readonly name = 'SignInRefusal';
}

export interface Pending {
  verifier: string;
  nonce: string;
  /** The one-time bootstrap token the sign-in carries, as its SHA-256 only (the pending row may be in a database). */
  bootstrapSha256?: string;
}

/** Sign-ins between their two requests, by state: this instance's memory, or PostgreSQL (postgresSessions.ts). */
export interface PendingSignIns {
  put(state: string, pending: Pending, ttlMs: number): Promise<void>;
  /** Once; undefined when unknown, already taken, or expired. */
  take(state: string): Promise<Pending | undefined>;
}

const PENDING_MS = 10 * 60 * 1000;
const MAX_PENDING = 10_000;

/** One instance's: the callback must come back to it. */
export class MemoryPendingSignIns implements PendingSignIns {
  private readonly pending = new Map<string, Pending & { expiresAt: number }>();

  put(state: string, pending: Pending, ttlMs: number): Promise<void> {
    if (this.pending.size >= MAX_PENDING) this.sweep();
    this.pending.set(state, { ...pending, expiresAt: Date.now() + ttlMs });
    return Promise.resolve();
  }

  take(state: string): Promise<Pending | undefined> {
    const found = this.pending.get(state);
    this.pending.delete(state);
    if (!found || found.expiresAt < Date.now()) return Promise.resolve(undefined);
    const { expiresAt: _expiresAt, ...pending } = found;
    return Promise.resolve(pending);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [state, p] of this.pending) if (p.expiresAt < now) this.pending.delete(state);
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
  }
}

export interface OidcOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The public address (…/auth/callback is the redirect URI registered at the provider). */
  publicUrl: () => string;
  secure: boolean;
  /** Where sign-ins wait for their callback (default: this instance's memory). */
  pending?: PendingSignIns;
}

export class OidcSignIn {
  private config: Promise<client.Configuration> | undefined;
  private readonly pending: PendingSignIns;
  private readonly cookieName: string;

  constructor(private readonly options: OidcOptions) {
    this.pending = options.pending ?? new MemoryPendingSignIns();
    this.cookieName = options.secure ? '__Host-miniharness-signin' : 'miniharness-signin';
  }

  private redirectUri(): string {
    return new URL('/auth/callback', this.options.publicUrl()).href;
  }

  /** The provider's metadata, discovered once (again after a failure). */
  discover(): Promise<client.Configuration> {
    if (!this.config) {
      const issuer = new URL(this.options.issuer);
      // Plain http only for a provider on this machine (tests, a local provider); never across a network.
      const insecure = issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname);
      this.config = client
        .discovery(issuer, this.options.clientId, this.options.clientSecret, undefined, {
          // Deprecated only to stand out: the library means it for a provider without TLS in development and tests.
          // eslint-disable-next-line @typescript-eslint/no-deprecated
          ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
        })
        .catch((error: unknown) => {
          this.config = undefined;
          throw error;
        });
    }
    return this.config;
  }

  /** Sends the browser to the provider. */
  async start(res: ServerResponse, bootstrap: string | undefined): Promise<void> {
    const config = await this.discover();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    await this.pending
      .put(state, { verifier, nonce, ...(bootstrap ? { bootstrapSha256: hashToken(bootstrap) } : {}) }, PENDING_MS)
      .catch(() => {
        // The database did not take it (serve on PostgreSQL): said as ours, not as the provider's failure.
        throw new SignInRefusal(
          'MiniHarness could not save this sign-in right now; try again later, or tell your admin.',
        );
      });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri(),
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    res.writeHead(303, {
      Location: url.href,
      'Set-Cookie': `${this.cookieName}=${state}; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=${PENDING_MS / 1000}${this.options.secure ? '; Secure' : ''}`,
      'Cache-Control': 'no-store',
    });
    res.end();
  }

  /** The person the provider vouches for, and the SHA-256 of the bootstrap token the sign-in carried; throws a SignInRefusal when refused. */
  async finish(req: IncomingMessage): Promise<{ person: Person; bootstrapSha256?: string }> {
    const url = new URL(req.url ?? '/', this.options.publicUrl());
    const state = url.searchParams.get('state') ?? '';
    const cookie = cookieOf(req, this.cookieName);
    // Taken only by the browser that started it: a callback link sent to someone else uses nothing up.
    const pending =
      cookie === state && state !== ''
        ? await this.pending.take(state).catch(() => {
            throw new SignInRefusal('MiniHarness could not read this sign-in right now; try again later.');
          })
        : undefined;
    if (!pending)
      throw new SignInRefusal('This sign-in was not started in this browser, or it took too long; sign in again.');
    const config = await this.discover();
    const tokens = await client.authorizationCodeGrant(config, url, {
      pkceCodeVerifier: pending.verifier,
      expectedState: state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new SignInRefusal('The identity provider did not say who signed in.');
    const person: Person = { issuer: claims.iss, subject: claims.sub };
    // An e-mail decides a role only when the provider verified it.
    if (typeof claims.email === 'string' && claims.email_verified === true) person.email = claims.email;
    if (typeof claims.name === 'string') person.name = claims.name;
    return { person, ...(pending.bootstrapSha256 ? { bootstrapSha256: pending.bootstrapSha256 } : {}) };
  }

  clearCookie(): string {
    return `${this.cookieName}=; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=0${this.options.secure ? '; Secure' : ''}`;
  }
}
