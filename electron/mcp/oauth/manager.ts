/**
 * The OAuth sessions of every configured server, one per server id (session.ts): the registry's
 * client factory hands each OAuth server's client its session, and the app drives sign-in and
 * sign-out through here. A changed configuration (URL, identity, OAuth settings) gets a fresh
 * session; the stored tokens of the old one are never presented for the new one (credentials.ts
 * binds them to the server's identity and URL).
 */
import type { ServerConfig } from '../../../shared/serverConfig.js';
import type { SecretResolver } from '../../secrets/resolver.js';
import type { OAuthCredentials } from './credentials.js';
import type { OAuthSessionView, OpenUrl } from './session.js';
import { OAuthSession, isOAuthServer } from './session.js';

export interface OAuthManagerOptions {
  credentials: OAuthCredentials;
  /** Resolves configured client secrets and private keys. */
  secrets: SecretResolver;
  /** Opens a sign-in page in the person's browser. */
  open: OpenUrl;
  /** Every token and client secret a session comes to hold, for redaction. */
  onSecret?: (value: string) => void;
  /** A server's OAuth state changed (signed in or out, a sign-in started or ended). */
  onChange?: (serverId: string) => void;
  /** A note for the server's log (never a secret). */
  note?: (serverId: string, text: string) => void;
  signInTimeoutMs?: number;
  clientVersion?: string;
}

/** What the registry needs: the session a server's client uses, if it is an OAuth server. */
export interface OAuthSessions {
  sessionFor(config: ServerConfig): OAuthSession | undefined;
}

export class OAuthManager implements OAuthSessions {
  private readonly sessions = new Map<string, OAuthSession>();

  constructor(private readonly options: OAuthManagerOptions) {}

  sessionFor(config: ServerConfig): OAuthSession | undefined {
    const existing = this.sessions.get(config.id);
    if (!isOAuthServer(config)) {
      if (existing) this.drop(config.id);
      return undefined;
    }
    if (existing?.matches(config)) return existing;
    if (existing) this.drop(config.id);
    const { options } = this;
    const session = new OAuthSession({
      config,
      credentials: options.credentials,
      secrets: options.secrets,
      open: options.open,
      ...(options.signInTimeoutMs !== undefined ? { signInTimeoutMs: options.signInTimeoutMs } : {}),
      ...(options.onSecret ? { onSecret: options.onSecret } : {}),
      ...(options.clientVersion ? { clientVersion: options.clientVersion } : {}),
      onChange: () => options.onChange?.(config.id),
      note: (text) => options.note?.(config.id, text),
    });
    this.sessions.set(config.id, session);
    return session;
  }

  /** What the GUI shows of a server's sign-in; undefined for a server without OAuth. */
  async view(config: ServerConfig): Promise<OAuthSessionView | undefined> {
    return this.sessionFor(config)?.view();
  }

  /** Forgets everything of a server: its session, tokens and client registration (it was removed, or its OAuth settings changed). */
  async forget(serverId: string): Promise<void> {
    this.drop(serverId);
    await this.options.credentials.forget(serverId);
  }

  /** Ends every sign-in in progress (the app is quitting). */
  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.endInteractive()));
  }

  private drop(serverId: string): void {
    const session = this.sessions.get(serverId);
    this.sessions.delete(serverId);
    void session?.endInteractive();
  }
}
