/**
 * The two sides of a sign-in that the gateway's OAuth tests play themselves: the agent's OAuth
 * client state (an SDK `OAuthClientProvider` kept in memory) and the person's browser (cookies
 * kept, redirects followed within the gateway by hand), plus the consent page's form.
 */
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';

/** An agent's OAuth client, everything kept in memory; `clientMetadataUrl`: it names itself by a Client ID Metadata Document. */
export class MemoryOAuthClient implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  stored: OAuthTokens | undefined;
  verifier: string | undefined;
  discovery: OAuthDiscoveryState | undefined;
  authorizationUrl: URL | undefined;
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;
  readonly clientMetadataUrl: string | undefined;

  constructor(options: { redirectUrl: string; clientName: string; clientMetadataUrl?: string }) {
    this.redirectUrl = options.redirectUrl;
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.clientMetadata = {
      client_name: options.clientName,
      redirect_uris: [options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no verifier');
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** A browser for one origin: keeps cookies, follows nothing by itself. */
export class Browser {
  private readonly cookies = new Map<string, string>();
  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('Cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
    return response;
  }
  /** Follows redirects within the gateway; stops at the first one elsewhere (the client's redirect URI) and returns its URL. */
  async navigate(url: string | URL, init: RequestInit = {}): Promise<{ response: Response; url: URL }> {
    let current = new URL(url);
    let response = await this.request(current, init);
    while (response.status >= 300 && response.status < 400) {
      const next = new URL(response.headers.get('location') ?? '', current);
      if (next.origin !== current.origin) return { response, url: next };
      current = next;
      response = await this.request(current);
    }
    return { response, url: current };
  }
}

/** The consent page's form: where it posts, and its CSRF secret. */
export function consentForm(html: string): { action: string; csrf: string } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!action || !csrf) throw new Error('no consent form');
  return { action, csrf };
}
