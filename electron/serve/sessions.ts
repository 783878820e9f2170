/**
 * Signed-in people's sessions (in this instance's memory: a restart signs everyone out). A
 * session is two secrets: the cookie (HttpOnly, SameSite=Lax, Secure on https) and the bridge
 * token the page gets in its link's fragment and sends with `/session` and the WebSocket. Both
 * must match: a page of another site can make the browser send the cookie, never the token.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { tokensEqual } from '../security/loopbackAccess.js';
import type { Person } from './people.js';
import type { Role } from './roles.js';

export interface Session {
  id: string;
  bridgeToken: string;
  person: Person;
  role: Role;
  expiresAt: number;
  /** A configured API token's (the command line's): no cookie, no expiry. */
  api?: true;
}

const SESSION_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 10_000;

export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export class Sessions {
  private readonly byId = new Map<string, Session>();
  /** `__Host-` when secure: the browser then refuses it from another subdomain or over http. */
  readonly cookieName: string;

  constructor(
    private readonly secure: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.cookieName = secure ? '__Host-miniharness' : 'miniharness';
  }

  create(person: Person, role: Role): Session {
    if (this.byId.size >= MAX_SESSIONS) this.sweep();
    const session: Session = {
      id: randomBytes(32).toString('base64url'),
      bridgeToken: randomBytes(32).toString('base64url'),
      person,
      role,
      expiresAt: this.now() + SESSION_MS,
    };
    this.byId.set(session.id, session);
    return session;
  }

  /**
   * Lax, not Strict: the navigation back from the identity provider (another site) must carry it
   * to the page, or the page would send the person to sign in again. Cross-site requests get
   * nothing from it alone: the bridge and /session also need the token.
   */
  setCookie(session: Session): string {
    return `${this.cookieName}=${session.id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_MS / 1000}${this.secure ? '; Secure' : ''}`;
  }

  clearCookie(): string {
    return `${this.cookieName}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${this.secure ? '; Secure' : ''}`;
  }

  /** The live session whose cookie this request carries and whose bridge token it gives. */
  find(req: IncomingMessage, bridgeToken: string | undefined): Session | undefined {
    const id = cookieOf(req, this.cookieName);
    const session = id === undefined ? undefined : this.byId.get(id);
    if (!session || !tokensEqual(session.bridgeToken, bridgeToken)) return undefined;
    return this.alive(session) ? session : undefined;
  }

  /** Whether this request carries the cookie of a live session (the page itself needs no token). */
  signedIn(req: IncomingMessage): boolean {
    const id = cookieOf(req, this.cookieName);
    const session = id === undefined ? undefined : this.byId.get(id);
    return session !== undefined && this.alive(session);
  }

  alive(session: Session): boolean {
    if (session.api) return true;
    if (this.byId.get(session.id) !== session) return false;
    if (session.expiresAt > this.now()) return true;
    this.byId.delete(session.id);
    return false;
  }

  end(session: Session): void {
    this.byId.delete(session.id);
  }

  private sweep(): void {
    for (const session of this.byId.values()) this.alive(session);
    // Still full of live sessions: the oldest goes.
    if (this.byId.size >= MAX_SESSIONS) this.byId.delete(this.byId.keys().next().value as string);
  }
}

/** At most `perMinute` attempts per key (a client address) in each minute. */
export class RateLimit {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds to wait when over the limit, else 0 (and the attempt is counted). */
  take(key: string): number {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= 60_000) {
      if (this.windows.size > 100_000) this.windows.clear();
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= this.perMinute) return Math.ceil((window.start + 60_000 - now) / 1000);
    window.count++;
    return 0;
  }
}
