/**
 * One server's OAuth session: the SDK's `OAuthClientProvider` for it (`provider`), plus what a
 * sign-in needs around the SDK's `auth()` — the loopback redirect, the browser, the state check,
 * and whether a person is there to sign in.
 *
 * The SDK does the protocol (protected-resource and authorization-server metadata discovery with
 * the 2025-03-26 fallbacks, dynamic client registration or a client ID metadata document, PKCE,
 * the scope from `WWW-Authenticate` or `scopes_supported`, the resource indicator, refresh, the
 * step-up on `insufficient_scope`). This session decides the rest:
 *
 * - Interactive (a person pressed Sign in; or a host that always has a browser at hand): when the
 *   SDK asks to redirect, the authorization URL is opened by the host and the redirect awaited on
 *   127.0.0.1 with its `state` checked; `MCPClient` then hands the code to the transport.
 * - Not interactive (discovery at start, a reconnect, an agent's call): nothing is registered and
 *   no browser opens; the request fails with `sign_in_required` and the reason (never signed in,
 *   token refused, more scopes needed, signed out). A refresh token is still used.
 *
 * Tokens and client secrets live in the secret store only (credentials.ts); every one is handed
 * to `onSecret` so logs, traces, events and errors redact it.
 *
 * Its state: the sign-in flow and the standing, each a table of states and transitions
 * (signInState.ts; a transition no row allows is refused). The other fields are not states:
 * caches of the secret store (tokens, client, configured secrets), what the SDK hands over during
 * one authorization (discovery, the `state` parameter, the PKCE verifier), and the server's last
 * word (its challenge, the scope a refused request needed).
 */
import { randomBytes } from 'node:crypto';
import { createPrivateKeyJwtAuth, checkResourceAllowed, resourceUrlFromServerUrl } from '@modelcontextprotocol/client';
import type {
  AddClientAuthentication,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import type { HttpServerConfig, OAuthConfig } from '../../../shared/serverConfig.js';
import type { SecretResolver } from '../../secrets/resolver.js';
import type { LogBuffer } from '../logBuffer.js';
import { SecretValue } from '../../secrets/secretValue.js';
import type { CredentialOwner, OAuthCredentials } from './credentials.js';
import { MCPOAuthError, MCPSignInRequiredError } from './errors.js';
import type { RedirectOutcome } from './loopback.js';
import { openLoopbackRedirect } from './loopback.js';
import type { ActiveAuthorization, SignInEvent, SignInState, Standing } from './signInState.js';
import { STANDING_TABLE, nextSignInState } from './signInState.js';

export type OAuthServerConfig = HttpServerConfig & { auth: OAuthConfig };

export function isOAuthServer(config: { transport: string; auth?: { kind: string } }): config is OAuthServerConfig {
  return config.transport === 'streamable_http' && config.auth?.kind === 'oauth';
}

/** Opens a URL in the person's browser (Electron `shell.openExternal`, a browser-mode tab, …). */
export type OpenUrl = (url: string, serverId: string) => void | Promise<void>;

export interface OAuthSessionOptions {
  config: OAuthServerConfig;
  credentials: OAuthCredentials;
  /** Resolves the configured client secret and private key. */
  secrets: SecretResolver;
  open: OpenUrl;
  /** How long a person has to finish a sign-in in the browser (default 5 minutes). */
  signInTimeoutMs?: number;
  /** Every token and client secret this session holds, for redaction. */
  onSecret?: (value: string) => void;
  /** The session changed (signed in or out, a sign-in started or ended): views refresh. */
  onChange?: () => void;
  note?: (text: string) => void;
  clientName?: string;
  clientVersion?: string;
  now?: () => number;
}

/** What the redirect brought: the code, and the issuer it named (RFC 9207), if it did. */
type AuthorizationResponse = Extract<RedirectOutcome, { code: string }>;

/** A browser sign-in in progress: the redirect it waits for. */
export interface PendingAuthorization {
  readonly url: string;
  /** The authorization code, once the redirect with the right `state` arrived; rejects on refusal, timeout or the signal. */
  code(signal?: AbortSignal): Promise<AuthorizationResponse>;
}

/** What the GUI may know of a session: never a token. */
export interface OAuthSessionView {
  signedIn: boolean;
  /** A browser sign-in is waiting; the URL lets the GUI offer a link when no browser opened. */
  authorizationUrl?: string;
  /** Scopes the server asked for that the sign-in does not have yet. */
  requiredScope?: string;
  grant: OAuthConfig['grant'];
}

const DEFAULT_SIGN_IN_TIMEOUT_MS = 5 * 60_000;

function scopeSet(scope: string | undefined | null): Set<string> {
  return new Set((scope ?? '').split(' ').filter(Boolean));
}

function unionScope(...scopes: Array<string | undefined | null>): string | undefined {
  const all = new Set(scopes.flatMap((s) => [...scopeSet(s)]));
  return all.size ? [...all].join(' ') : undefined;
}

/** The loopback port a stored registration names, if its redirect is a 127.0.0.1 one. */
function registeredPort(client: OAuthClientInformationMixed | undefined): number | undefined {
  const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  const first = Array.isArray(uris) && typeof uris[0] === 'string' ? uris[0] : undefined;
  if (!first) return undefined;
  try {
    const url = new URL(first);
    return url.hostname === '127.0.0.1' && url.port ? Number(url.port) : undefined;
  } catch {
    return undefined;
  }
}

export class OAuthSession {
  readonly serverId: string;
  readonly provider: OAuthClientProvider;
  private readonly config: OAuthConfig;
  private readonly owner: CredentialOwner;
  /** Whether a person is here and where the browser sign-in stands (SIGN_IN_TABLE). */
  private flow: SignInState = { phase: 'background' };
  /** Why a background request must ask for a sign-in (STANDING_TABLE). */
  private standing: Standing = 'fresh';
  private expectedState: string | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  /** undefined: not loaded yet; null: none stored. */
  private tokenCache: OAuthTokens | null | undefined;
  private clientCache: OAuthClientInformationMixed | null | undefined;
  private configured: { secret?: SecretValue; privateKey?: SecretValue } | undefined;
  /** Scopes a refused request needed (403 insufficient_scope): the next sign-in asks for them too. */
  private requiredScope: string | undefined;
  /** The last OAuth challenge the server answered with (401/403 `WWW-Authenticate`). */
  private challenge: { status: number; error?: string; scope?: string } | undefined;
  private readonly secretValues = new Map<string, SecretValue>();
  private readonly logs = new Map<LogBuffer, SecretValue[]>();
  private readonly refreshes = new Map<
    string,
    Promise<{ status: number; statusText: string; headers: Array<[string, string]>; body: string }>
  >();

  constructor(private readonly options: OAuthSessionOptions) {
    const { config } = options;
    this.serverId = config.id;
    this.config = config.auth;
    this.owner = { serverId: config.id, uid: config.uid, url: config.url };
    this.provider = this.buildProvider();
  }

  /** The configuration this session was made for (a changed one gets a new session). */
  matches(config: OAuthServerConfig): boolean {
    return (
      config.url === this.owner.url &&
      config.uid === this.owner.uid &&
      JSON.stringify(config.auth) === JSON.stringify(this.config)
    );
  }

  // ── interaction ─────────────────────────────────────────────────────────────────────────────

  /**
   * A person is here to sign in: opens the loopback redirect (on the port the stored
   * registration names, when there is one and it is free; a taken port means a new registration).
   */
  async beginInteractive(): Promise<void> {
    this.standing = STANDING_TABLE[this.standing].begin;
    if (this.flow.phase !== 'background') return;
    if (this.config.grant !== 'authorization_code') {
      this.move({ type: 'begin' });
      this.changed();
      return;
    }
    const stored = this.config.clientId ? undefined : await this.storedClient();
    const wanted = this.config.redirectPort ?? registeredPort(stored) ?? 0;
    let listener;
    try {
      listener = await openLoopbackRedirect(wanted, (text) => this.note(text));
    } catch (error) {
      if (this.config.redirectPort !== undefined) {
        throw new MCPOAuthError(this.serverId, 'redirect_unavailable', {
          detail: `port ${this.config.redirectPort} on 127.0.0.1 is in use (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        });
      }
      listener = await openLoopbackRedirect(0, (text) => this.note(text));
      if (stored) await this.dropStoredClient(); // registered for the old port: register again
    }
    // Another Sign in began while this one opened its port: that one's redirect is the one used.
    if (this.flow.phase !== 'background') {
      await listener.close();
      return;
    }
    this.move({ type: 'listen', listener });
    this.changed();
  }

  /** The person is done (signed in, or gave up): no browser opens until the next sign-in. */
  async endInteractive(): Promise<void> {
    const was = this.flow;
    this.move({ type: 'end' });
    if (was.phase === 'awaiting_browser')
      was.pending.abort.abort(new MCPOAuthError(this.serverId, 'denied', { detail: 'the sign-in was cancelled' }));
    if ('listener' in was) await was.listener.close();
    this.changed();
  }

  /** The browser sign-in the SDK started, if any (the client waits for its code). */
  pendingAuthorization(): PendingAuthorization | undefined {
    return this.flow.phase === 'awaiting_browser' ? this.flow.pending : undefined;
  }

  /** The pending sign-in was completed or abandoned by its waiter. */
  settlePendingAuthorization(): void {
    this.move({ type: 'settle' });
    this.changed();
  }

  /** What the server answered a refused request with (recorded by the transport's fetch). */
  noteChallenge(status: number, header: string | null): void {
    // A refused token: the resource may now name another authorization server (SEP-2352), so the
    // next sign-in reads its metadata afresh rather than the kept discovery (not while a browser
    // sign-in is under way: its callback is checked against the server it started with).
    if (status === 401 && this.flow.phase !== 'awaiting_browser') this.discovery = undefined;
    if (!header || !/^\s*bearer\b/i.test(header)) return;
    const field = (name: string): string | undefined =>
      new RegExp(`${name}=(?:"([^"]*)"|([^\\s,]+))`)
        .exec(header)
        ?.slice(1)
        .find((v) => v !== undefined);
    const error = field('error');
    const scope = field('scope');
    this.challenge = { status, ...(error ? { error } : {}), ...(scope ? { scope } : {}) };
    if (status === 403 && error === 'insufficient_scope' && scope)
      this.requiredScope = unionScope(this.requiredScope, scope);
  }

  // ── sign-out and views ──────────────────────────────────────────────────────────────────────

  /** Forgets the tokens (the client registration stays); the next request says "signed out". */
  async signOut(): Promise<void> {
    await this.endInteractive();
    await this.options.credentials.delete(this.serverId, 'tokens');
    this.tokenCache = null;
    this.standing = STANDING_TABLE[this.standing].sign_out;
    this.changed();
  }

  /** Forgets the tokens before a fresh sign-in (a new account, more scopes). */
  async clearTokens(): Promise<void> {
    await this.options.credentials.delete(this.serverId, 'tokens');
    this.tokenCache = null;
  }

  async view(): Promise<OAuthSessionView> {
    const tokens = await this.loadTokens();
    const pending = this.pendingAuthorization();
    return {
      signedIn: tokens !== undefined,
      grant: this.config.grant,
      ...(pending ? { authorizationUrl: pending.url } : {}),
      ...(this.requiredScope ? { requiredScope: this.requiredScope } : {}),
    };
  }

  /** Every secret this session holds now (tokens, client secrets), for redaction. */
  secrets(): SecretValue[] {
    return [...this.secretValues.values()];
  }

  /**
   * Wraps the fetch the SDK uses so that concurrent refreshes of one refresh token become one
   * request: several requests refused at once (an expired token) each run the SDK's `auth()`,
   * and a rotated refresh token works only once — the second refresh would fail and lose the
   * sign-in. Each of them gets the one answer (kept a minute, in memory only).
   */
  coalescingFetch(fetchFn: typeof fetch): typeof fetch {
    return async (input, init) => {
      const body = init?.body;
      const refreshToken =
        init?.method === 'POST' && body instanceof URLSearchParams && body.get('grant_type') === 'refresh_token'
          ? body.get('refresh_token')
          : null;
      if (!refreshToken) return fetchFn(input, init);
      let answer = this.refreshes.get(refreshToken);
      if (!answer) {
        answer = fetchFn(input, init).then(async (response) => ({
          status: response.status,
          statusText: response.statusText,
          headers: [...response.headers],
          body: await response.text(),
        }));
        this.refreshes.set(refreshToken, answer);
        const forget = (): void => void setTimeout(() => this.refreshes.delete(refreshToken), 60_000).unref();
        answer.then(forget, () => this.refreshes.delete(refreshToken));
      }
      const { status, statusText, headers, body: text } = await answer;
      return new Response(text, { status, statusText, headers });
    };
  }

  /** Keeps `log` redacting `base` plus every secret of this session, as new ones arrive (one binding per log). */
  redactIn(log: LogBuffer, base: SecretValue[]): void {
    this.logs.set(log, base);
    log.redact([...base, ...this.secrets()]);
  }

  // ── the SDK's provider ──────────────────────────────────────────────────────────────────────

  private buildProvider(): OAuthClientProvider {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the provider is a view of this session
    const session = this;
    const clientCredentials = this.config.grant === 'client_credentials';
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        if (clientCredentials) return undefined;
        return (
          ('listener' in session.flow ? session.flow.listener.redirectUrl : undefined) ??
          `http://127.0.0.1:${session.config.redirectPort ?? registeredPort(session.clientCache ?? undefined) ?? 0}/callback`
        );
      },
      get clientMetadata(): OAuthClientMetadata {
        const redirect = provider.redirectUrl;
        return {
          client_name: session.options.clientName ?? 'MiniHarness Desktop',
          redirect_uris: redirect ? [String(redirect)] : [],
          grant_types: clientCredentials ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
          response_types: clientCredentials ? [] : ['code'],
          // A desktop app cannot keep a secret: a public client unless the server says otherwise.
          token_endpoint_auth_method:
            session.config.tokenEndpointAuthMethod ?? (clientCredentials ? 'client_secret_basic' : 'none'),
          software_id: 'miniharness-desktop',
          ...(session.options.clientVersion ? { software_version: session.options.clientVersion } : {}),
          ...(session.config.scope ? { scope: session.config.scope } : {}),
        };
      },
      ...(this.config.clientMetadataUrl ? { clientMetadataUrl: this.config.clientMetadataUrl } : {}),
      state: () => {
        this.expectedState = randomBytes(32).toString('base64url');
        return this.expectedState;
      },
      clientInformation: (ctx) => this.clientInformation(ctx?.issuer),
      saveClientInformation: (info) => this.saveClientInformation(info),
      // Credentials are keyed by issuer: tokens another authorization server issued are not presented.
      tokens: async (ctx) => {
        const tokens = await this.tokensForSdk();
        const issuer = (tokens as { issuer?: unknown } | undefined)?.issuer;
        return ctx?.issuer && typeof issuer === 'string' && issuer !== ctx.issuer ? undefined : tokens;
      },
      saveTokens: (tokens) => this.saveTokens(tokens),
      redirectToAuthorization: (url) => this.redirectToAuthorization(url),
      saveCodeVerifier: (verifier) => {
        this.verifier = verifier;
      },
      codeVerifier: () => {
        if (!this.verifier)
          throw new MCPOAuthError(this.serverId, 'token_request_failed', { detail: 'no sign-in is in progress' });
        return this.verifier;
      },
      invalidateCredentials: (scope) => this.invalidate(scope),
      saveDiscoveryState: (state) => this.saveDiscovery(state),
      discoveryState: () => this.discovery,
      prepareTokenRequest: (scope) => {
        if (!clientCredentials) return undefined;
        const params = new URLSearchParams({ grant_type: 'client_credentials' });
        if (scope) params.set('scope', scope);
        return params;
      },
    };
    if (this.config.privateKey) provider.addClientAuthentication = this.privateKeyJwt();
    return provider;
  }

  private privateKeyJwt(): AddClientAuthentication {
    return async (headers, params, url, metadata) => {
      const { privateKey } = await this.configuredSecrets();
      if (!privateKey || !this.config.clientId)
        throw new MCPOAuthError(this.serverId, 'token_request_failed', { detail: 'the private key is not set' });
      const sign = createPrivateKeyJwtAuth({
        issuer: this.config.clientId,
        subject: this.config.clientId,
        privateKey: privateKey.reveal(),
        alg: this.config.signingAlgorithm ?? 'ES256',
      });
      await sign(headers, params, url, metadata);
      // The assertion is a credential too (valid for minutes): never in a log or a trace.
      const assertion = params.get('client_assertion');
      if (assertion) this.remember(assertion);
    };
  }

  private async configuredSecrets(): Promise<{ secret?: SecretValue; privateKey?: SecretValue }> {
    if (!this.configured) {
      const secret = this.config.clientSecret
        ? await this.options.secrets.resolve(this.config.clientSecret)
        : undefined;
      const privateKey = this.config.privateKey
        ? await this.options.secrets.resolve(this.config.privateKey)
        : undefined;
      this.configured = { ...(secret ? { secret } : {}), ...(privateKey ? { privateKey } : {}) };
      for (const value of [secret, privateKey]) if (value) this.remember(value.reveal());
    }
    return this.configured;
  }

  /** The registration to present to the authorization server `issuer` names (the SDK says which it is talking to). */
  private async clientInformation(issuer: string | undefined): Promise<OAuthClientInformationMixed | undefined> {
    if (this.config.clientId) {
      // Pre-registered: the configured id and secret, bound to the authorization server of its first use.
      const { secret } = await this.configuredSecrets();
      const bound = await this.storedClient();
      const method = this.config.tokenEndpointAuthMethod;
      return {
        client_id: this.config.clientId,
        ...(secret ? { client_secret: secret.reveal() } : {}),
        ...(method && method !== 'private_key_jwt' ? { token_endpoint_auth_method: method } : {}),
        ...(bound?.client_id === this.config.clientId && bound.issuer ? { issuer: bound.issuer } : {}),
      } as OAuthClientInformationMixed;
    }
    // Registrations are kept per authorization server: a resource that moved to another one is
    // registered with it anew (SEP-2352), and one that moves back finds its registration there.
    const stored = issuer === undefined ? await this.storedClient() : await this.storedClientFor(issuer);
    // Registering a client is a sign-in step: never done in the background.
    if (!stored && this.flow.phase === 'background') throw this.signInRequired();
    return stored;
  }

  private async storedClientFor(issuer: string): Promise<OAuthClientInformationMixed | undefined> {
    const stored = await this.options.credentials.clientFor(this.owner, issuer);
    if (stored?.client_secret) this.remember(stored.client_secret);
    return stored;
  }

  private async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (this.config.clientId) {
      // The issuer binding of the pre-registered client; its secret stays in its own secret slot.
      const binding = {
        client_id: info.client_id,
        ...(info.issuer ? { issuer: info.issuer } : {}),
      } as OAuthClientInformationMixed;
      this.clientCache = binding;
      await this.options.credentials.saveClient(this.owner, binding);
      return;
    }
    if (this.flow.phase === 'background') throw this.signInRequired();
    if (info.client_secret) this.remember(info.client_secret);
    this.clientCache = info;
    await this.options.credentials.saveClient(this.owner, info);
  }

  private async storedClient(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.clientCache === undefined) {
      const stored = await this.options.credentials.client(this.owner);
      this.clientCache = stored ?? null;
      if (stored?.client_secret) this.remember(stored.client_secret);
    }
    return this.clientCache ?? undefined;
  }

  private async dropStoredClient(): Promise<void> {
    await this.options.credentials.delete(this.serverId, 'client');
    this.clientCache = null;
  }

  private async loadTokens(): Promise<OAuthTokens | undefined> {
    if (this.tokenCache === undefined) {
      const stored = await this.options.credentials.tokens(this.owner);
      this.tokenCache = stored?.tokens ?? null;
      if (stored) this.rememberTokens(stored.tokens);
    }
    return this.tokenCache ?? undefined;
  }

  /**
   * The tokens as the SDK should see them. During a step-up (the server answered 403
   * insufficient_scope for scopes this token lacks) the refresh token is held back: the SDK would
   * otherwise refresh — which never adds a scope — instead of asking for a new authorization.
   */
  private async tokensForSdk(): Promise<OAuthTokens | undefined> {
    const tokens = await this.loadTokens();
    const challenge = this.challenge;
    if (!tokens?.refresh_token || challenge?.status !== 403 || challenge.error !== 'insufficient_scope') return tokens;
    const granted = scopeSet(tokens.scope);
    const lacking = [...scopeSet(challenge.scope)].some((s) => !granted.has(s)) || granted.size === 0;
    if (!lacking) return tokens;
    const { refresh_token: _held, ...rest } = tokens;
    return rest;
  }

  private async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.challenge = undefined;
    this.rememberTokens(tokens);
    this.tokenCache = tokens;
    this.standing = STANDING_TABLE[this.standing].tokens_saved;
    // A grant that covers the scopes a refused request needed settles that need.
    if (
      this.requiredScope &&
      tokens.scope &&
      [...scopeSet(this.requiredScope)].every((s) => scopeSet(tokens.scope).has(s))
    )
      this.requiredScope = undefined;
    await this.options.credentials.saveTokens(this.owner, tokens, (this.options.now ?? Date.now)());
    this.changed();
  }

  private async redirectToAuthorization(url: URL): Promise<void> {
    // The refused transition: no person is here, or this grant has no browser step (SIGN_IN_TABLE).
    const from = this.flow;
    if (from.phase !== 'listening' && from.phase !== 'awaiting_browser')
      throw this.signInRequired(url.searchParams.get('scope') ?? undefined);
    // The endpoint came from the server's metadata: only a web page is ever opened.
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new MCPOAuthError(this.serverId, 'discovery_failed', {
        detail: `the authorization endpoint is not a web address (${url.protocol})`,
      });
    const state = url.searchParams.get('state');
    if (!state || state !== this.expectedState)
      throw new MCPOAuthError(this.serverId, 'denied', { detail: 'the authorization request lost its state' });
    // Ask at once for what a refused request needed and what the sign-in already had.
    const scope = unionScope(url.searchParams.get('scope'), this.requiredScope, this.tokenCache?.scope);
    if (scope) url.searchParams.set('scope', scope);
    if (from.phase === 'awaiting_browser')
      from.pending.abort.abort(new MCPOAuthError(this.serverId, 'denied', { detail: 'a newer sign-in replaced it' }));
    const abort = new AbortController();
    const outcome = from.listener.waitFor(state, abort.signal);
    outcome.catch(() => undefined); // read by code(); an abandoned one must not be an unhandled rejection
    const timeoutMs = this.options.signInTimeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS;
    const serverId = this.serverId;
    const pending: ActiveAuthorization = {
      url: url.href,
      abort,
      code: (signal) => awaitCode(serverId, outcome, timeoutMs, abort, signal),
    };
    this.move({ type: 'redirect', pending });
    this.note('sign-in: waiting for the authorization in the browser');
    this.changed();
    try {
      await this.options.open(url.href, this.serverId);
    } catch (error) {
      this.note(
        `the browser could not be opened (${error instanceof Error ? error.message : String(error)}); open the sign-in link shown in the app`,
      );
    }
  }

  private async invalidate(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'tokens') {
      if (this.tokenCache) this.standing = STANDING_TABLE[this.standing].tokens_refused;
      await this.options.credentials.delete(this.serverId, 'tokens');
      this.tokenCache = null;
    }
    if ((scope === 'all' || scope === 'client') && !this.config.clientId) await this.dropStoredClient();
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
    this.changed();
  }

  /** The metadata must name this server as its resource: a token for one server is never asked for on behalf of another. */
  private saveDiscovery(state: OAuthDiscoveryState): void {
    const resource = state.resourceMetadata?.resource;
    if (
      resource &&
      !checkResourceAllowed({
        requestedResource: resourceUrlFromServerUrl(this.owner.url),
        configuredResource: resource,
      })
    ) {
      throw new MCPOAuthError(this.serverId, 'resource_mismatch', { resource });
    }
    this.discovery = state;
  }

  private signInRequired(requestedScope?: string): MCPSignInRequiredError {
    if (this.standing === 'signed_out') return new MCPSignInRequiredError(this.serverId, 'signed_out');
    const challenge = this.challenge;
    if (challenge?.status === 403 && challenge.error === 'insufficient_scope') {
      return new MCPSignInRequiredError(
        this.serverId,
        'insufficient_scope',
        unionScope(challenge.scope, requestedScope),
      );
    }
    if (this.tokenCache || this.standing === 'token_rejected')
      return new MCPSignInRequiredError(this.serverId, 'token_rejected');
    return new MCPSignInRequiredError(this.serverId, 'no_token');
  }

  /** Takes a sign-in step the table allows; one it refuses is a defect here, never a state to carry on in. */
  private move(event: SignInEvent): void {
    const next = nextSignInState(this.flow, event);
    if (!next)
      throw new Error(`OAuth sign-in of "${this.serverId}": "${event.type}" is refused while ${this.flow.phase}`);
    this.flow = next;
  }

  private rememberTokens(tokens: OAuthTokens): void {
    for (const value of [tokens.access_token, tokens.refresh_token, tokens.id_token]) if (value) this.remember(value);
  }

  private remember(value: string): void {
    if (this.secretValues.has(value)) return;
    this.secretValues.set(value, new SecretValue(value));
    this.options.onSecret?.(value);
    for (const [log, base] of this.logs) log.redact([...base, ...this.secrets()]);
  }

  private note(text: string): void {
    this.options.note?.(text);
  }

  private changed(): void {
    this.options.onChange?.();
  }
}

/** Waits for the redirect's outcome, at most `timeoutMs`, or until the caller's signal aborts. */
async function awaitCode(
  serverId: string,
  outcome: Promise<RedirectOutcome>,
  timeoutMs: number,
  abort: AbortController,
  signal?: AbortSignal,
): Promise<AuthorizationResponse> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = (): void =>
    abort.abort(
      signal?.reason instanceof Error
        ? signal.reason
        : new MCPOAuthError(serverId, 'denied', { detail: 'the sign-in was cancelled' }),
    );
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new MCPOAuthError(serverId, 'sign_in_timeout');
        abort.abort(error);
        reject(error);
      }, timeoutMs);
    });
    const result = await Promise.race([outcome, timeout]);
    if ('error' in result) throw new MCPOAuthError(serverId, 'denied', { oauthError: result.error });
    return result.iss ? { code: result.code, iss: result.iss } : { code: result.code };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
