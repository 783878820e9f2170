/**
 * Signed-in people's sessions. A session is two secrets: the cookie (HttpOnly, SameSite=Lax,
 * Secure on https) and the bridge token the page gets in its link's fragment and sends with
 * `/session` and the WebSocket. Both must match: a page of another site can make the browser send
 * the cookie, never the token. Only their SHA-256 are kept: the session's id is the cookie's hash.
 *
 * Two stores (`Sessions`): this file's, in the instance's memory — a desktop-less single `serve`
 * on SQLite, where a restart signs everyone out (kept so: one instance, no second process to
 * share with, and a file of live cookies' hashes would buy little over signing in again); and
 * postgresSessions.ts, in PostgreSQL — for instances on one database, behind a balancer without
 * affinity: any instance accepts the session, a sign-out is seen by all, a restart keeps it.
 */
import type { IncomingMessage } from 'node:http';
import { newToken, tokensEqual } from '../security/loopbackAccess.js';
import { hashToken } from '../security/tokenHash.js';
import type { Person } from './people.js';
import type { Role } from './roles.js';

export interface Session {
  /** The SHA-256 of the session's cookie (an API token's caller: its own name). */
  id: string;
  person: Person;
  role: Role;
  expiresAt: number;
  /** A configured API token's (the command line's): no cookie, no expiry. */
  api?: true;
}

/** A session just made: the two secrets go to the browser, once; neither is kept. */
export interface NewSession {
  session: Session;
  cookie: string;
  bridgeToken: string;
}

export interface Sessions {
  readonly cookieName: string;
  create(person: Person, role: Role): Promise<NewSession>;
  /** The live session whose cookie this request carries and whose bridge token it gives. */
  find(req: IncomingMessage, bridgeToken: string | undefined): Promise<Session | undefined>;
  /** Whether this request carries the cookie of a live session (the page itself needs no token). */
  signedIn(req: IncomingMessage): Promise<boolean>;
  /** Not ended (here or on another instance) and not expired; synchronous, for each bridge request. */
  alive(session: Session): boolean;
  end(session: Session): Promise<void>;
  /** Ends every session of this person (their role changed or was taken away); resolves with how many. */
  endFor(person: Person): Promise<number>;
  /** `listener` runs when sessions may have ended: the host then closes the bridges `alive` refuses. */
  onEnded(listener: () => void): () => void;
  setCookie(cookie: string): string;
  clearCookie(): string;
  close(): Promise<void>;
}

export const SESSION_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 10_000;

export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The cookie's name and attributes, and the listeners of ended sessions: the same for both stores. */
export abstract class SessionCookies {
  /** `__Host-` when secure: the browser then refuses it from another subdomain or over http. */
  readonly cookieName: string;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly secure: boolean) {
    this.cookieName = secure ? '__Host-miniharness' : 'miniharness';
  }

  /** The hash of the request's session cookie (the session's id), if it carries one. */
  protected idOf(req: IncomingMessage): string | undefined {
    const cookie = cookieOf(req, this.cookieName);
    return cookie ? hashToken(cookie) : undefined;
  }

  /**
   * Lax, not Strict: the navigation back from the identity provider (another site) must carry it
   * to the page, or the page would send the person to sign in again. Cross-site requests get
   * nothing from it alone: the bridge and /session also need the token.
   */
  setCookie(cookie: string): string {
    return `${this.cookieName}=${cookie}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_MS / 1000}${this.secure ? '; Secure' : ''}`;
  }

  clearCookie(): string {
    return `${this.cookieName}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${this.secure ? '; Secure' : ''}`;
  }

  onEnded(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected ended(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

interface Kept {
  session: Session;
  bridgeSha256: string;
}

/** Sessions in this instance's memory (one instance on SQLite). */
export class MemorySessions extends SessionCookies implements Sessions {
  private readonly byId = new Map<string, Kept>();

  constructor(
    secure: boolean,
    private readonly now: () => number = Date.now,
  ) {
    super(secure);
  }

  create(person: Person, role: Role): Promise<NewSession> {
    if (this.byId.size >= MAX_SESSIONS) this.sweep();
    const cookie = newToken();
    const bridgeToken = newToken();
    const session: Session = { id: hashToken(cookie), person, role, expiresAt: this.now() + SESSION_MS };
    this.byId.set(session.id, { session, bridgeSha256: hashToken(bridgeToken) });
    return Promise.resolve({ session, cookie, bridgeToken });
  }

  find(req: IncomingMessage, bridgeToken: string | undefined): Promise<Session | undefined> {
    const id = this.idOf(req);
    const kept = id === undefined ? undefined : this.byId.get(id);
    if (!kept || bridgeToken === undefined || !tokensEqual(kept.bridgeSha256, hashToken(bridgeToken)))
      return Promise.resolve(undefined);
    return Promise.resolve(this.alive(kept.session) ? kept.session : undefined);
  }

  signedIn(req: IncomingMessage): Promise<boolean> {
    const id = this.idOf(req);
    const kept = id === undefined ? undefined : this.byId.get(id);
    return Promise.resolve(kept !== undefined && this.alive(kept.session));
  }

  alive(session: Session): boolean {
    if (session.api) return true;
    if (this.byId.get(session.id)?.session !== session) return false;
    if (session.expiresAt > this.now()) return true;
    this.byId.delete(session.id);
    return false;
  }

  end(session: Session): Promise<void> {
    if (this.byId.delete(session.id)) this.ended();
    return Promise.resolve();
  }

  endFor(person: Person): Promise<number> {
    let count = 0;
    for (const [id, kept] of this.byId)
      if (kept.session.person.issuer === person.issuer && kept.session.person.subject === person.subject) {
        this.byId.delete(id);
        count++;
      }
    if (count > 0) this.ended();
    return Promise.resolve(count);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private sweep(): void {
    for (const kept of this.byId.values()) this.alive(kept.session);
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
