/**
 * Agents sign in instead of copying tokens: the gateway as an OAuth 2.1 protected resource with
 * its own loopback authorization server (provider.ts). This is the gateway's one hook into it:
 * which paths are the sign-in's (`handles`), serving them (`serve`), who a bearer token belongs to
 * (`authenticate`: an agent's static token or an access token issued here for the gateway's
 * `/mcp`), and ending an agent's sign-in when the person revokes or removes it (`revokeAgent`).
 *
 * Served here: the protected-resource metadata (RFC 9728, built by the SDK), the authorization
 * server's metadata (RFC 8414 and OpenID discovery), registration, authorization, token and
 * revocation (oidc-provider), and the consent page. CORS, deliberately: metadata, token,
 * registration and revocation answer any origin — browser-based clients (the Inspector) call them
 * across origins, and they carry no ambient authority (no cookie; a code is useless without the
 * PKCE verifier). The authorization and consent pages get no CORS: they are reached by top-level
 * navigation, and the consent POST must come from the gateway's own origin (Origin checked) with
 * the interaction's CSRF secret. Host is checked by the gateway for every path.
 *
 * The account is the person at this computer; each agent is a grant the person made to a client
 * on the consent page (the agent records its grant id; its tokens carry it). Revoking or removing
 * the agent destroys the grant and every token of it.
 *
 * A refused token is answered with MiniHarness's own sentence (401 `invalid_token` with the
 * sentence as `error_description`, which clients show); a request without credentials gets the
 * challenge that starts a client's sign-in.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import {
  OAuthError,
  OAuthErrorCode,
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type Provider from 'oidc-provider';
import { AgentVisibilitySchema, GATEWAY_PATH } from '../../../shared/agents.js';
import type { SignInState } from '../../../shared/agents.js';
import { bearerOf, tokensEqual } from '../../security/loopbackAccess.js';
import type { AgentStorage, StoredAgent } from '../agentStore.js';
import { readBody } from '../requestBody.js';
import { consentPage, errorPage, pageSecurityHeaders } from './consentPage.js';
import type { OAuthStorage } from './oauthStore.js';
import type { ClientMetadataFetch } from './provider.js';
import { CONSENT_PATH, MCP_SCOPE, OAUTH_ROUTES, createProvider } from './provider.js';

/** What a client shows its user when the gateway refuses its token (ASCII: it travels in a header). */
export const REFUSED_TOKEN_SENTENCE =
  "MiniHarness refused this agent's token: it is wrong or expired, or the agent was revoked or removed in MiniHarness (Agents). Sign in again, or add the agent again in MiniHarness > Agents and use its new token.";
/** What a client without credentials is told. */
const NO_TOKEN_SENTENCE =
  "MiniHarness needs this agent to sign in: connect with a client that supports OAuth, or send the agent's token from MiniHarness > Agents as 'Authorization: Bearer <token>'.";

const PRM_PATH = '/.well-known/oauth-protected-resource';
/** The sign-in's own paths (metadata, and each OAuth route itself); under a route (`/token/…`) is the sign-in's too. */
const SIGN_IN_PATHS: ReadonlySet<string> = new Set([
  PRM_PATH,
  `${PRM_PATH}${GATEWAY_PATH}`,
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  ...Object.values(OAUTH_ROUTES),
]);
const ROUTE_PREFIXES: readonly string[] = Object.values(OAUTH_ROUTES).map((route) => `${route}/`);
const CORS_OPEN = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, MCP-Protocol-Version',
  'Access-Control-Max-Age': '600',
};
/**
 * The one account of this authorization server: the person at this computer. Each agent is a
 * grant the person made to a client (its tokens carry the grant id); keeping one account means a
 * browser session left by one sign-in never has to be logged out for the next.
 */
const PERSON = 'miniharness-person';
/** A consent form is a few hundred bytes; anything far larger is not one. */
const MAX_FORM_BYTES = 64 * 1024;

export interface SignInOptions {
  agents: AgentStorage;
  store: OAuthStorage;
  /** The servers the consent page offers to choose from. */
  servers(): Array<{ id: string; name: string }>;
  /** An agent was created by a sign-in (the Agents view is told). */
  onAgentCreated(agent: StoredAgent): void;
  /** A sign-in's state changed (a code redeemed, a grant ended): the Agents view is told. */
  onSignInChanged?(): void;
  /**
   * The address agents reach the gateway at through a balancer (`miniharness serve`'s
   * `gateway.publicUrl`): every instance then issues and accepts tokens for this one issuer and
   * its `/mcp` resource, so a token from one instance is refreshed and used through another.
   * Absent: the issuer is this gateway's own loopback origin.
   */
  publicUrl?: string;
  /** A problem the person should see (app warnings): a grant that could not be revoked. */
  warn?(message: string): void;
  /** How Client ID Metadata Documents are fetched (provider.ts; default: fetch). Tests answer them. */
  fetchClientMetadata?: ClientMetadataFetch;
}

export type Authentication =
  { agent: StoredAgent } | { status: 401; sentence: string; headers: Record<string, string> };

interface Listening {
  port: number;
  /** The issuer's origin: the loopback one, or the configured public address's. */
  origin: string;
  resource: URL;
  /** The resources tokens are issued for and accepted for here. */
  resources: ReadonlySet<string>;
  /** Issued for the configured public address: metadata names it whatever Host the request had. */
  public: boolean;
  provider: Provider;
  handler: (req: IncomingMessage, res: ServerResponse) => unknown;
}

export class GatewaySignIn {
  private listening: Listening | undefined;
  /** The CSRF secret of each consent page shown, by interaction uid (the interaction expires in minutes; so do these). */
  private readonly csrf = new Map<string, { secret: string; expiresAt: number }>();

  constructor(private readonly options: SignInOptions) {
    if (options.onSignInChanged) options.store.onGrantsChanged = options.onSignInChanged;
  }

  /**
   * The gateway listens on `port`: the authorization server's issuer is its origin (a new port: a
   * new issuer, old tokens refused). If it cannot be set up (its key cannot be saved), sign-in is
   * unavailable (503 on its endpoints) and static tokens still work.
   */
  listenOn(port: number): void {
    const loopback = `http://127.0.0.1:${port}`;
    const publicOrigin = this.options.publicUrl === undefined ? undefined : new URL(this.options.publicUrl).origin;
    const origin = publicOrigin ?? loopback;
    const resources = new Set([
      `${origin}${GATEWAY_PATH}`,
      `${loopback}${GATEWAY_PATH}`,
      `http://localhost:${port}${GATEWAY_PATH}`,
    ]);
    try {
      const { fetchClientMetadata } = this.options;
      const provider = createProvider({
        issuer: origin,
        resources,
        store: this.options.store,
        accountExists: (id) => id === PERSON,
        renderError: errorPage,
        ...(fetchClientMetadata ? { fetchClientMetadata } : {}),
      });
      // Behind the balancer the provider must build its URLs (endpoints in its metadata, redirects)
      // on the public address, not on the Host the balancer set for this instance: `serve` sets the
      // forwarded host and protocol from the configuration (never from the request), and the
      // provider reads them.
      if (publicOrigin) provider.proxy = true;
      this.listening = {
        port,
        origin,
        resource: new URL(`${origin}${GATEWAY_PATH}`),
        resources,
        public: publicOrigin !== undefined,
        provider,
        handler: provider.callback(),
      };
    } catch {
      this.listening = undefined;
    }
  }

  stop(): void {
    this.listening = undefined;
    this.csrf.clear();
  }

  /** Whether the path is one of the sign-in's (else the gateway's own routing goes on). Asked of every request: no allocation. */
  handles(path: string): boolean {
    if (SIGN_IN_PATHS.has(path) || path.startsWith(CONSENT_PATH)) return true;
    for (const route of ROUTE_PREFIXES) if (path.startsWith(route)) return true;
    return false;
  }

  async serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const listening = this.listening;
    if (!listening)
      return void res
        .writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' })
        .end(
          'Sign-in is unavailable: the MiniHarness gateway could not set up its authorization server. Use a token from MiniHarness → Agents.',
        );
    if (listening.public) {
      const publicUrl = new URL(listening.origin);
      req.headers['x-forwarded-host'] = publicUrl.host;
      req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
    }
    const open =
      path.startsWith('/.well-known/') ||
      path === OAUTH_ROUTES.token ||
      path === OAUTH_ROUTES.registration ||
      path === OAUTH_ROUTES.revocation ||
      path === OAUTH_ROUTES.jwks;
    if (open && req.method === 'OPTIONS') return void res.writeHead(204, CORS_OPEN).end();
    if (path === PRM_PATH || path === `${PRM_PATH}${GATEWAY_PATH}`)
      return this.serveResourceMetadata(req, res, listening);
    for (const [name, value] of Object.entries(pageSecurityHeaders())) res.setHeader(name, value);
    if (path === OAUTH_ROUTES.registration)
      for (const [name, value] of Object.entries(CORS_OPEN)) res.setHeader(name, value);
    if (path.startsWith(CONSENT_PATH)) return this.serveConsent(req, res, listening, path.slice(CONSENT_PATH.length));
    await listening.handler(req, res);
  }

  /**
   * Who the bearer token belongs to: an agent's static token (stdio entry and clients that
   * cannot sign in), or an access token issued here, for this gateway's `/mcp`, whose agent may
   * still connect. Otherwise the answer to send, with the sentence. `host`: the Host the client
   * reached (already checked): the challenge names the metadata under that spelling (localhost or
   * 127.0.0.1), whose resource then matches the client's URL, as clients check.
   */
  async authenticate(authorization: string | undefined, host?: string): Promise<Authentication> {
    const listening = this.listening;
    // Only a refusal names it (its challenge): built then, not for every request that passes.
    const metadataUrl = (): string | undefined =>
      listening
        ? getOAuthProtectedResourceMetadataUrl(new URL(`${originAsReached(listening, host)}${GATEWAY_PATH}`))
        : undefined;
    if (authorization === undefined || authorization.trim() === '') {
      const resourceMetadataUrl = metadataUrl();
      // RFC 6750 §3.1: no credentials, no error code — the challenge that starts a sign-in.
      return {
        status: 401,
        sentence: NO_TOKEN_SENTENCE,
        headers: {
          'WWW-Authenticate': `Bearer${resourceMetadataUrl ? ` resource_metadata="${resourceMetadataUrl}"` : ''}`,
        },
      };
    }
    const token = bearerOf(authorization);
    // An agent's static token (the usual request) is known by its hash; it does not expire, it lasts until the agent is
    // revoked. Only an access token issued here goes through the SDK's bearer check (format, expiry, the challenge).
    const known = token === undefined ? undefined : this.options.agents.authenticate(token);
    if (known) return { agent: known };
    let agent: StoredAgent | undefined;
    try {
      await verifyBearerToken(token ? `Bearer ${token}` : authorization, {
        verifier: {
          verifyAccessToken: async (value): Promise<AuthInfo> => {
            const found = await this.agentOfAccessToken(value);
            if (!found) throw new OAuthError(OAuthErrorCode.InvalidToken, REFUSED_TOKEN_SENTENCE);
            agent = found;
            // The provider found it unexpired; the SDK wants an expiry beyond this request.
            return {
              token: value,
              clientId: found.signIn?.clientId ?? found.id,
              scopes: [MCP_SCOPE],
              expiresAt: Math.floor(Date.now() / 1000) + 3600,
            };
          },
        },
      });
    } catch (error) {
      const resourceMetadataUrl = metadataUrl();
      const refusal =
        error instanceof OAuthError && error.code === OAuthErrorCode.InvalidToken
          ? error
          : new OAuthError(OAuthErrorCode.InvalidToken, REFUSED_TOKEN_SENTENCE);
      // The SDK's challenge (error, error_description, resource_metadata), always with the sentence.
      const answer = bearerAuthChallengeResponse(
        new OAuthError(
          OAuthErrorCode.InvalidToken,
          refusal.message === REFUSED_TOKEN_SENTENCE
            ? REFUSED_TOKEN_SENTENCE
            : `${REFUSED_TOKEN_SENTENCE} (${refusal.message})`,
        ),
        resourceMetadataUrl ? { resourceMetadataUrl } : {},
      );
      return {
        status: 401,
        sentence: REFUSED_TOKEN_SENTENCE,
        headers: { 'WWW-Authenticate': answer.headers.get('WWW-Authenticate') ?? 'Bearer error="invalid_token"' },
      };
    }
    return agent
      ? { agent }
      : {
          status: 401,
          sentence: REFUSED_TOKEN_SENTENCE,
          headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
        };
  }

  /** Where an agent's sign-in stands (shared/agents.ts SignInState), by its grant. */
  grantState(grantId: string): SignInState {
    return this.options.store.grantState(grantId);
  }

  /**
   * The person revoked or removed the agent: its grant, access and refresh tokens end now. False
   * (and a warning) when the store could not revoke the grant: the agent's own revocation still
   * refuses its access tokens, but on PostgreSQL its refresh tokens would stay valid unsaid.
   */
  async revokeAgent(agentId: string): Promise<boolean> {
    const agent = this.options.agents.list().find((a) => a.id === agentId);
    const grantId = agent?.signIn?.grantId;
    return grantId === undefined || this.revokeGrant(grantId, agent?.name ?? agentId);
  }

  /** Revokes a grant; a failure is said (`warn`), never swallowed. */
  private async revokeGrant(grantId: string, agentName: string): Promise<boolean> {
    try {
      await this.options.store.revokeGrant(grantId);
      return true;
    } catch (error) {
      const code =
        typeof (error as { code?: unknown }).code === 'string' ? ` (${(error as { code: string }).code})` : '';
      this.options.warn?.(
        `The sign-in of agent “${agentName}” could not be revoked${code}: its refresh tokens may still work. Revoke or remove the agent again.`,
      );
      return false;
    }
  }

  /** The agent of an access token issued here: unexpired, for this gateway's resource, its grant still there. */
  private async agentOfAccessToken(value: string): Promise<StoredAgent | undefined> {
    const listening = this.listening;
    if (!listening || value.length > 200) return undefined;
    const token = await listening.provider.AccessToken.find(value).catch(() => undefined);
    if (!token) return undefined;
    const audiences = Array.isArray(token.aud) ? token.aud : [token.aud];
    if (!audiences.some((aud) => typeof aud === 'string' && listening.resources.has(aud))) return undefined;
    const grant = await listening.provider.Grant.find(token.grantId).catch(() => undefined);
    if (!grant || token.accountId !== PERSON || grant.clientId !== token.clientId) return undefined;
    const agent = this.options.agents.list().find((a) => a.signIn?.grantId === token.grantId);
    return agent && agent.revokedAt === undefined && agent.signIn?.clientId === token.clientId ? agent : undefined;
  }

  private serveResourceMetadata(req: IncomingMessage, res: ServerResponse, listening: Listening): void {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return void res.writeHead(405, { ...CORS_OPEN, Allow: 'GET, OPTIONS' }).end();
    // The resource is named as the client reached it (127.0.0.1 or localhost): clients check that it matches their URL.
    const host = originAsReached(listening, req.headers.host);
    const metadata = buildOAuthProtectedResourceMetadata({
      oauthMetadata: {
        issuer: listening.origin,
        authorization_endpoint: `${listening.origin}${OAUTH_ROUTES.authorization}`,
        token_endpoint: `${listening.origin}${OAUTH_ROUTES.token}`,
        response_types_supported: ['code'],
      },
      resourceServerUrl: new URL(`${host}${GATEWAY_PATH}`),
      scopesSupported: [MCP_SCOPE],
      resourceName: 'MiniHarness agent gateway',
      // The issuer is the gateway's own loopback origin, which the SDK accepts without https.
      dangerouslyAllowInsecureIssuerUrl: true,
    });
    res
      .writeHead(200, { ...CORS_OPEN, 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
      .end(JSON.stringify(metadata));
  }

  private async serveConsent(
    req: IncomingMessage,
    res: ServerResponse,
    listening: Listening,
    uid: string,
  ): Promise<void> {
    const fail = (status: number, title: string, detail: string): void =>
      void res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' }).end(errorPage(title, detail));
    if (req.method === 'POST') {
      // Only a page of this origin may answer: a form on another site cannot approve a sign-in.
      const origin = req.headers.origin;
      if (
        origin !== listening.origin &&
        origin !== `http://localhost:${listening.port}` &&
        origin !== `http://127.0.0.1:${listening.port}`
      )
        return fail(403, 'This answer was refused', 'It did not come from MiniHarness’s own consent page.');
    } else if (req.method !== 'GET')
      return fail(405, 'Not allowed', 'The consent page is shown with GET and answered with POST.');

    const signIn = await this.consentInteraction(req, res, listening, uid, fail);
    if (!signIn) return;
    if (req.method === 'GET') return this.showConsent(res, uid, signIn);
    return this.answerConsent(req, res, listening, uid, signIn, fail);
  }

  /** The sign-in in progress this consent page belongs to, and its client; undefined when it failed (answered). */
  private async consentInteraction(
    req: IncomingMessage,
    res: ServerResponse,
    listening: Listening,
    uid: string,
    fail: ConsentFailure,
  ): Promise<ConsentSignIn | undefined> {
    const { provider } = listening;
    let details: InteractionDetails;
    try {
      details = await provider.interactionDetails(req, res);
    } catch {
      fail(
        400,
        'This sign-in has expired',
        'The sign-in was not found in this browser, or it took too long. Start it again from the agent.',
      );
      return undefined;
    }
    if (details.uid !== uid || (details.prompt.name !== 'login' && details.prompt.name !== 'consent')) {
      fail(
        400,
        'This sign-in cannot go on',
        'The page does not belong to the sign-in in progress. Start it again from the agent.',
      );
      return undefined;
    }
    const clientId = String(details.params.client_id ?? '');
    const client = await provider.Client.find(clientId).catch(() => undefined);
    if (!client) {
      fail(
        400,
        'This sign-in cannot go on',
        'The client that started it is not known here. Start it again from the agent.',
      );
      return undefined;
    }
    const redirectUri = String(details.params.redirect_uri ?? client.redirectUris?.[0] ?? '');
    const redirect = URL.parse(redirectUri);
    const redirectTarget = redirect
      ? redirect.host
        ? `${redirect.protocol}//${redirect.host}`
        : redirect.protocol
      : redirectUri;
    const clientName =
      typeof client.clientName === 'string' && client.clientName.trim() !== '' ? client.clientName.trim() : undefined;
    return { details, clientId, clientName, redirectTarget };
  }

  /** GET: the consent page, with a fresh CSRF secret for its answer. */
  private showConsent(res: ServerResponse, uid: string, { clientId, clientName, redirectTarget }: ConsentSignIn): void {
    const secret = randomBytes(32).toString('base64url');
    this.pruneCsrf();
    this.csrf.set(uid, { secret, expiresAt: Date.now() + 10 * 60_000 });
    const html = consentPage({
      action: `${CONSENT_PATH}${uid}`,
      csrf: secret,
      clientName,
      clientId,
      clientIdIsUrl: /^https:\/\//i.test(clientId),
      redirectTarget,
      agentName: this.options.agents.freeName(clientName ?? 'Signed-in agent'),
      servers: this.options.servers(),
    });
    for (const [name, value] of Object.entries(pageSecurityHeaders(redirectTarget ? [redirectTarget] : [])))
      res.setHeader(name, value);
    return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
  }

  /** POST: the person's answer: denied, or allowed with what the agent sees (a grant, then its agent). */
  private async answerConsent(
    req: IncomingMessage,
    res: ServerResponse,
    listening: Listening,
    uid: string,
    { details, clientId, clientName, redirectTarget }: ConsentSignIn,
    fail: ConsentFailure,
  ): Promise<void> {
    const { provider } = listening;
    let form: URLSearchParams;
    try {
      form = new URLSearchParams((await readBody(req, MAX_FORM_BYTES)).toString('utf8'));
    } catch {
      return fail(413, 'This answer was refused', 'It was not a consent form.');
    }
    const expected = this.csrf.get(uid);
    if (!expected || expected.expiresAt < Date.now() || !tokensEqual(expected.secret, form.get('csrf'))) {
      return fail(
        403,
        'This answer was refused',
        'It did not come from the consent page MiniHarness showed (reload the page to answer again).',
      );
    }
    this.csrf.delete(uid);
    for (const [name, value] of Object.entries(pageSecurityHeaders(redirectTarget ? [redirectTarget] : [])))
      res.setHeader(name, value);
    if (form.get('decision') !== 'allow') {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The person denied this sign-in in MiniHarness.' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const known = new Set(this.options.servers().map((s) => s.id));
    const visibility = AgentVisibilitySchema.safeParse({
      allServers: form.get('scope') !== 'chosen',
      serverIds: [...new Set(form.getAll('server'))].filter((id) => known.has(id)),
      localTools: form.get('localTools') === 'on',
    });
    if (!visibility.success)
      return fail(400, 'This answer was refused', 'The choice of what the agent sees was not valid.');

    const grantId = await saveGrant(listening, details, clientId);
    let agent: StoredAgent;
    try {
      agent = await this.options.agents.createSignedIn(clientName ?? 'Signed-in agent', visibility.data, {
        clientId,
        ...(clientName ? { clientName: clientName.slice(0, 200) } : {}),
        redirectTarget: redirectTarget.slice(0, 2048),
        grantId,
      });
    } catch {
      // The agent could not be saved (the settings file): no grant without its agent.
      await this.revokeGrant(grantId, clientName ?? 'Signed-in agent');
      return fail(500, 'The agent could not be added', 'MiniHarness could not save it. Try again from the agent.');
    }
    this.options.onAgentCreated(agent);
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: PERSON }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  private pruneCsrf(): void {
    const now = Date.now();
    for (const [uid, entry] of this.csrf) if (entry.expiresAt < now) this.csrf.delete(uid);
  }
}

type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;
/** Answers the consent request with an error page. */
type ConsentFailure = (status: number, title: string, detail: string) => void;
/** The sign-in a consent page belongs to, and how its client is named to the person. */
interface ConsentSignIn {
  details: InteractionDetails;
  clientId: string;
  clientName: string | undefined;
  redirectTarget: string;
}

/** The person allowed the sign-in: the grant of what the client asked for, within what this server offers. */
async function saveGrant(listening: Listening, details: InteractionDetails, clientId: string): Promise<string> {
  const { provider } = listening;
  const grant = new provider.Grant({ accountId: PERSON, clientId });
  // What the client asked for, within what this server offers: its scopes, and the gateway's resource with the gateway's scope.
  const offered = new Set(['openid', 'offline_access', MCP_SCOPE]);
  const scopes = String(details.params.scope ?? '')
    .split(' ')
    .filter((scope) => offered.has(scope));
  if (scopes.length > 0) grant.addOIDCScope(scopes.join(' '));
  const requested = details.params.resource;
  const indicators = (Array.isArray(requested) ? requested : [requested]).filter(
    (r): r is string => typeof r === 'string' && listening.resources.has(r),
  );
  for (const indicator of indicators.length > 0 ? indicators : [listening.resource.href])
    grant.addResourceScope(indicator, MCP_SCOPE);
  return grant.save();
}

/** The gateway's origin as the client spelled it: `localhost` when its Host said so, else 127.0.0.1. */
function originAsReached(listening: Listening, host: string | undefined): string {
  // Behind a balancer the Host is the one it set for this instance; the agent reached the public address.
  if (listening.public) return listening.origin;
  return host?.toLowerCase().startsWith('localhost:') ? `http://localhost:${listening.port}` : listening.origin;
}
