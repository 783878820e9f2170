/**
 * The gateway's loopback authorization server: oidc-provider configured for MCP clients. Its
 * issuer is the gateway's own origin (`http://127.0.0.1:<port>`), so a new port is a new issuer
 * and a new resource: tokens issued for the old one are refused (their audience no longer names
 * this gateway) and the agents' clients sign in again; the agents stay listed.
 *
 * What a client gets: public clients only (`token_endpoint_auth_method: none`), registered
 * dynamically (RFC 7591) or named by a Client ID Metadata Document (an https client_id fetched by
 * the library with its limits — 2.5 s, 5 KiB, no redirects, no private addresses — and here also
 * an `application/json` answer); the authorization code flow with PKCE S256 required; tokens bound
 * to the gateway's `/mcp` resource (RFC 8707: any other resource is refused); opaque access tokens
 * (so revoking a grant stops them at once), refresh tokens rotated on every use; revocation
 * (RFC 7009). Every authorization asks the person again (the consent page): a browser session left
 * from an earlier sign-in never lets a new client in silently.
 */
import Provider, { errors, interactionPolicy } from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { OAuthStorage } from './oauthStore.js';

/** The scope the gateway's resource understands (advertised in its protected-resource metadata). */
export const MCP_SCOPE = 'mcp';
/** An access token lives an hour; the client refreshes it. */
const ACCESS_TOKEN_TTL_S = 60 * 60;
/** A refresh token unused for 30 days expires (each use gives a new one). */
const REFRESH_TOKEN_TTL_S = 30 * 24 * 60 * 60;
/** A grant (a sign-in) lasts a year at most; then the client signs in again. */
const GRANT_TTL_S = 365 * 24 * 60 * 60;
/** The person has ten minutes to answer the consent page. */
const INTERACTION_TTL_S = 10 * 60;

export const OAUTH_ROUTES = {
  authorization: '/authorize',
  token: '/token',
  registration: '/register',
  revocation: '/revoke',
  jwks: '/jwks',
} as const;
export const CONSENT_PATH = '/consent/';

export interface ProviderOptions {
  /** `http://127.0.0.1:<port>` */
  issuer: string;
  /** The URLs naming the gateway's `/mcp` resource (127.0.0.1 and localhost). */
  resources: ReadonlySet<string>;
  store: OAuthStorage;
  /** Whether the account exists (there is one: the person; each agent is one of the person's grants). */
  accountExists(accountId: string): boolean;
  /** The error page (HTML) for a request the server refuses before any redirect is possible. */
  renderError(title: string, detail: string): string;
  /**
   * How a Client ID Metadata Document is fetched (default: the global fetch, with the library's
   * SSRF-protected dispatcher in `init`). Tests answer Client ID Metadata Document fetches; the
   * answer still goes through the JSON-only check.
   */
  fetchClientMetadata?: ClientMetadataFetch;
}

/** `fetch`'s signature, as oidc-provider calls it for a Client ID Metadata Document. */
export type ClientMetadataFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Every authorization asks the person: the login prompt is satisfied only by this interaction's own answer. */
function consentEveryTime(): interactionPolicy.DefaultPolicy {
  const policy = interactionPolicy.base();
  policy
    .get('login')
    ?.checks.add(
      new interactionPolicy.Check('each_sign_in', 'the person approves each sign-in', (ctx: KoaContextWithOIDC) =>
        ctx.oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
      ),
    );
  return policy;
}

/** The library's fetch, for Client ID Metadata Documents: only a JSON answer is read (any other is a 415, which the library refuses). */
function fetchJsonOnly(fetcher: ClientMetadataFetch): ClientMetadataFetch {
  return async (input, init) => {
    const response = await fetcher(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      await response.body?.cancel();
      return new Response(null, { status: 415 });
    }
    return response;
  };
}

export function createProvider(options: ProviderOptions): Provider {
  const { store, resources } = options;
  const [defaultResource] = resources;
  const configuration: Configuration = {
    adapter: (model: string) => store.adapterFor(model),
    clients: [],
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    responseTypes: ['code'],
    scopes: ['openid', 'offline_access', MCP_SCOPE],
    claims: { openid: ['sub'] },
    pkce: { required: () => true },
    cookies: {
      keys: [store.cookieKey],
      names: { session: 'mh_oauth_session', interaction: 'mh_oauth_interaction', resume: 'mh_oauth_resume' },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    jwks: { keys: [store.signingJwk() as never] },
    routes: OAUTH_ROUTES,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => Promise.resolve(token.clientId === client.clientId),
      },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => defaultResource as string,
        // A refresh or code exchange without `resource` targets what was granted (the gateway).
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (!resources.has(indicator))
            throw new errors.InvalidTarget('this authorization server issues tokens for the MiniHarness gateway only');
          return {
            scope: MCP_SCOPE,
            audience: indicator,
            accessTokenFormat: 'opaque',
            accessTokenTTL: ACCESS_TOKEN_TTL_S,
          };
        },
      },
    },
    // Public clients that asked for the refresh_token grant get one, with or without offline_access.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    // The browser session only carries the consent; the tokens do not end with it.
    expiresWithSession: () => false,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: GRANT_TTL_S,
      Interaction: INTERACTION_TTL_S,
      Session: INTERACTION_TTL_S,
      IdToken: ACCESS_TOKEN_TTL_S,
    },
    interactions: { policy: consentEveryTime(), url: (_ctx, interaction) => `${CONSENT_PATH}${interaction.uid}` },
    findAccount: (_ctx, sub) => (options.accountExists(sub) ? { accountId: sub, claims: () => ({ sub }) } : undefined),
    // Browser-based clients (the Inspector) call the token and revocation endpoints across
    // origins: they carry no cookie and need the code and verifier, so any origin may read them.
    clientBasedCORS: () => true,
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = options.renderError(
        'This sign-in cannot go on',
        typeof out.error_description === 'string' ? out.error_description : String(out.error ?? 'error'),
      );
    },
    fetch: fetchJsonOnly(options.fetchClientMetadata ?? ((input, init) => fetch(input, init))),
  };
  const provider = new Provider(options.issuer, configuration);
  // Refused requests are answered to the client; nothing more is said (and nothing reaches a log).
  provider.on('server_error', () => undefined);
  return provider;
}
