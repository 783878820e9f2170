/**
 * A team's identity provider for the tests: a real OpenID Connect provider (oidc-provider) on
 * loopback, with a few people and one confidential client (MiniHarness serve). Its sign-in page
 * is one form (`user`), so a browser (Playwright) and a fetch driver (signInDriver.ts) fill it the
 * same way; signing in also grants the scopes asked (no consent page).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Configuration } from 'oidc-provider';

export interface TeamPerson {
  email: string;
  name: string;
  /** false: the provider does not vouch for the e-mail (its role must not follow from it). */
  emailVerified?: boolean;
}

export interface TeamIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registers the client's redirect URI (known once MiniHarness listens). */
  allowRedirect(uri: string): void;
  close(): Promise<void>;
}

const CLIENT_ID = 'miniharness-serve';
const CLIENT_SECRET = 'team-idp-test-client-secret-0123456789';

function page(uid: string): string {
  return `<!doctype html><title>Team sign-in</title><form method="post" action="/interaction/${uid}">
<label>User <input name="user" autofocus></label><button type="submit">Sign in</button></form>`;
}

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return new URLSearchParams(body);
}

/**
 * `hostname: 'localhost'` puts the provider on another site than MiniHarness on 127.0.0.1 (as a
 * team's provider is): the browser then treats the way back as a cross-site navigation.
 */
export async function startTeamIdp(
  people: Record<string, TeamPerson>,
  options: { hostname?: '127.0.0.1' | 'localhost' } = {},
): Promise<TeamIdp> {
  const redirects: string[] = [];
  let provider: Provider | undefined;
  const http = createServer((req, res) => void route(req, res));
  const hostname = options.hostname ?? '127.0.0.1';
  // localhost may resolve to ::1 or 127.0.0.1: listen on both.
  await new Promise<void>((r) => http.listen(0, hostname === 'localhost' ? '::' : hostname, r));
  const issuer = `http://${hostname}:${(http.address() as AddressInfo).port}`;

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const p = provider as Provider;
    const details = await p.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error('interaction mismatch');
    if (req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(page(uid));
      return;
    }
    const user = (await formOf(req)).get('user') ?? '';
    if (!people[user]) {
      await p.interactionFinished(req, res, { error: 'access_denied', error_description: 'unknown user' });
      return;
    }
    const grant = new p.Grant({ accountId: user, clientId: String(details.params.client_id) });
    grant.addOIDCScope('openid email profile');
    const grantId = await grant.save();
    await p.interactionFinished(
      req,
      res,
      { login: { accountId: user }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const match = /^\/interaction\/([\w-]+)$/.exec(req.url ?? '');
      if (match) return await interaction(req, res, match[1] as string);
      (provider as Provider).callback()(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  }

  const configuration: Configuration = {
    clients: [],
    findAccount: (_ctx, sub) => {
      const person = people[sub];
      if (!person) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: person.email, email_verified: person.emailVerified ?? true, name: person.name }),
      };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile'],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, i) => `/interaction/${i.uid}` },
    cookies: { keys: ['team-idp-test-cookie-key'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    // The ID token carries the claims (MiniHarness reads them from it, not from userinfo).
    conformIdTokenClaims: false,
  };

  function build(): void {
    provider = new Provider(issuer, {
      ...configuration,
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: redirects.length > 0 ? redirects : ['http://127.0.0.1/unused'],
          token_endpoint_auth_method: 'client_secret_post',
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
    });
  }
  build();

  return {
    issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    allowRedirect(uri) {
      redirects.push(uri);
      build();
    },
    close: () =>
      new Promise<void>((r) => {
        http.closeAllConnections();
        http.close(() => r());
      }),
  };
}
