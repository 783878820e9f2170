/**
 * The web host's access for `miniharness serve` (electron/web/access.ts): Host and Origin must be
 * the public address's, people sign in through OpenID Connect (oidcSignIn.ts) at /auth/*, each
 * contract request is checked against the person's role (roles.ts), and every sign-in, change and
 * decision is recorded with the person (audit.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebAccess } from '../web/access.js';
import { sessionBearer } from '../web/access.js';
import { isAllowedHost, isAllowedOrigin } from '../security/loopbackAccess.js';
import type { AuditLog } from './audit.js';
import type { OidcSignIn } from './oidcSignIn.js';
import { SignInRefusal } from './oidcSignIn.js';
import type { People, Person } from './people.js';
import { personLabel } from './people.js';
import { dispatchPeople, isPeopleChannel } from './peopleChannels.js';
import type { Role } from './roles.js';
import { CHANNEL_ROLES, roleAllows, roleGetsEvent } from './roles.js';
import type { RateLimit, Session, Sessions } from './sessions.js';

/** Sessions of API tokens made on the People page, by the token's id (checked live: a revoked token's connection stops). */
const tokenIds = new WeakMap<Session, string>();

/** An API token's caller when `token` is one (the configuration's or the People page's). */
function apiCaller(people: People, token: string | undefined): Session | undefined {
  const match = people.apiCaller(token);
  if (!match) return undefined;
  const person = { issuer: 'miniharness', subject: `api-token:${match.name}`, name: `CLI (${match.name})` };
  const session: Session = { id: person.subject, person, role: match.role, expiresAt: Infinity, api: true };
  if (match.id !== undefined) tokenIds.set(session, match.id);
  return session;
}

/**
 * The caller's role now: a person's as the People page and the configuration say at this moment
 * (a change on any instance applies to open pages at once), a token's while it is not revoked.
 */
function roleNow(people: People, session: Session): Role | undefined {
  if (session.api) {
    const id = tokenIds.get(session);
    return id === undefined || people.tokenLive(id) ? session.role : undefined;
  }
  return people.roleOf(session.person);
}

export interface ServeAccessOptions {
  publicUrl: string | undefined;
  trustedProxies: readonly string[];
  sessions: Sessions;
  people: People;
  oidc: OidcSignIn | undefined;
  audit: AuditLog;
  signInLimit: RateLimit;
  health: () => { ready: boolean; reason?: string; draining?: boolean };
}

function text(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers })
    .end(`${body}\n`);
}

/** The client's address: the socket's, or — only behind a trusted proxy — the last untrusted X-Forwarded-For entry. */
export function clientAddress(req: IncomingMessage, trusted: readonly string[]): string {
  const peer = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  if (!trusted.includes(peer)) return peer;
  const forwarded = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((s) => s.trim().replace(/^::ffff:/, ''))
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i--)
    if (!trusted.includes(forwarded[i] as string)) return forwarded[i] as string;
  return peer;
}

/**
 * The session, if its person's role is still the one it was signed in with. Sessions outlive a
 * restart on PostgreSQL, so a role changed in the configuration (or taken away) since then ends
 * the session here: the person signs in again and gets what the configuration says now.
 */
async function withCurrentRole(
  options: ServeAccessOptions,
  session: Session | undefined,
): Promise<Session | undefined> {
  if (!session || options.people.roleOf(session.person) === session.role) return session;
  await options.sessions.end(session);
  options.audit.record({ action: 'sign-out', person: session.person, reason: 'role changed' });
  return undefined;
}

/** Channels a viewer may use read; everything else is a change or a decision, and is recorded. */
const isRecorded = (channel: string): boolean => (CHANNEL_ROLES as Record<string, string>)[channel] !== 'viewer';

/** /auth/login and /auth/callback: rate-limited, then the provider, the role, the session. */
async function signIn(
  options: ServeAccessOptions,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const { sessions, people, audit } = options;
  const oidc = options.oidc;
  if (!oidc) return text(res, 503, 'No identity provider is configured (oidc in the configuration).');
  const wait = options.signInLimit.take(clientAddress(req, options.trustedProxies));
  if (wait > 0)
    return text(res, 429, `Too many sign-in attempts from your address; try again in ${wait} s.`, {
      'Retry-After': String(wait),
    });
  if (path === '/auth/login') {
    const bootstrap = new URL(req.url ?? '/', 'http://host').searchParams.get('bootstrap') ?? undefined;
    try {
      return await oidc.start(res, bootstrap);
    } catch (error) {
      if (error instanceof SignInRefusal) {
        audit.record({ action: 'sign-in refused', reason: 'sign-in not saved' });
        return text(res, 503, error.message);
      }
      // The provider's discovery failed (down, unreachable, bad metadata): its text is for the operator, not the person.
      audit.record({ action: 'sign-in refused', reason: `identity provider: ${(error as Error).name}` });
      return text(res, 502, 'The identity provider cannot be reached right now; try again later, or tell your admin.');
    }
  }
  let signedIn: Awaited<ReturnType<OidcSignIn['finish']>>;
  try {
    signedIn = await oidc.finish(req);
  } catch (error) {
    audit.record({ action: 'sign-in refused', reason: (error as Error).name });
    // Only our own refusals are sentences; a library's or fetch's text ("fetch failed") would mean nothing to the person.
    const why =
      error instanceof SignInRefusal
        ? error.message
        : 'The identity provider could not complete the sign-in; try again, or tell your admin.';
    return text(res, 403, `Sign-in failed: ${why} Open /auth/login to try again.`);
  }
  const { person, bootstrapSha256 } = signedIn;
  // Listed on the People page even without a role: an admin can then give them one.
  await people.seen(person);
  if (bootstrapSha256 !== undefined && (await people.redeemBootstrap(person, bootstrapSha256)))
    audit.record({ action: 'bootstrap admin', person, role: 'admin' });
  const role = people.roleOf(person);
  if (!role) {
    audit.record({ action: 'sign-in refused', person, reason: 'no role' });
    return text(res, 403, `${personLabel(person)} has no role on this MiniHarness; ask an admin to give you one.`, {
      'Set-Cookie': oidc.clearCookie(),
    });
  }
  const { cookie, bridgeToken } = await sessions.create(person, role);
  audit.record({ action: 'sign-in', person, role });
  // The bridge token travels in the fragment: never sent to a server, never in a log; the page keeps it.
  res.writeHead(303, {
    Location: `/#token=${bridgeToken}`,
    'Set-Cookie': [sessions.setCookie(cookie), oidc.clearCookie()],
    'Cache-Control': 'no-store',
  });
  res.end();
}

/** The routes of sign-in, sign-out and who-am-I, and the page's redirect to sign in; true when answered. */
async function authRoutes(
  options: ServeAccessOptions,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<boolean> {
  const { sessions, audit } = options;
  if ((path === '/auth/login' || path === '/auth/callback') && req.method === 'GET') {
    await signIn(options, req, res, path);
    return true;
  }
  if (path === '/auth/me' || path === '/auth/logout') {
    const session = await withCurrentRole(options, await sessions.find(req, sessionBearer(req)));
    if (!session) text(res, 401, 'Not signed in.');
    else if (path === '/auth/me' && req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify({ name: personLabel(session.person), role: roleNow(options.people, session) ?? null }));
    } else if (path === '/auth/logout' && req.method === 'POST') {
      // A POST with the bridge token: a page of another site cannot sign anyone out either.
      await sessions.end(session);
      audit.record({ action: 'sign-out', person: session.person });
      res.writeHead(204, { 'Set-Cookie': sessions.clearCookie() }).end();
    } else text(res, 405, 'Method not allowed');
    return true;
  }
  // The page itself: someone without a live session (never signed in, signed out, or this instance restarted) signs in first.
  if ((path === '/' || path === '/index.html') && req.method === 'GET' && !(await sessions.signedIn(req))) {
    res.writeHead(303, { Location: '/auth/login', 'Cache-Control': 'no-store' }).end();
    return true;
  }
  return false;
}

export function serveAccess(options: ServeAccessOptions): WebAccess<Session> {
  const { sessions, audit, people } = options;
  const publicUrl = options.publicUrl ? new URL(options.publicUrl) : undefined;
  // Every instance's sessions of the person end (Sessions.endFor: PostgreSQL tells the others, and their bridges close).
  // Best effort: were it to fail, the person's requests are still refused by their role on every instance.
  const endSessionsOf = (person: Person): Promise<void> =>
    sessions.endFor(person).then(
      () => undefined,
      () => undefined,
    );
  return {
    hostAllowed: (host, port) => (publicUrl ? host?.toLowerCase() === publicUrl.host : isAllowedHost(host, port)),
    originAllowed: (origin, port) =>
      publicUrl ? origin === undefined || origin === publicUrl.origin : isAllowedOrigin(origin, port),
    handle: (req, res, path) => authRoutes(options, req, res, path),
    health: options.health,
    authenticate: async (req, token) => {
      const session = (await withCurrentRole(options, await sessions.find(req, token))) ?? apiCaller(people, token);
      // A revoked token is nobody (a person without a role any more has no session left: withCurrentRole ended it).
      return session && roleNow(people, session) ? session : undefined;
    },
    alive: (session) => sessions.alive(session),
    watchEnded: (recheck) => sessions.onEnded(recheck),
    actorOf: (session) => personLabel(session.person),
    eventAllowed: (session, event, byActor) => {
      // A session ended elsewhere gets no more events, even before its bridge is closed.
      if (!sessions.alive(session)) return false;
      const role = roleNow(people, session);
      return (
        role !== undefined &&
        roleGetsEvent(role, event) &&
        (event !== 'oauth.authorize' || byActor === personLabel(session.person))
      );
    },
    refusal: (session, channel) => {
      if (!sessions.alive(session)) return 'Your session has ended; sign in again.';
      const role = roleNow(people, session);
      if (!role) {
        if (!session.api) void endSessionsOf(session.person);
        return session.api ? 'This API token was revoked.' : 'Your role was taken away; ask an admin.';
      }
      if (roleAllows(role, channel)) return undefined;
      audit.record({ action: 'request', person: session.person, role, channel, ok: false, reason: 'role' });
      return `Your role (${role}) does not allow ${channel}.`;
    },
    dispatch: (session, channel, payload) => {
      if (!isPeopleChannel(channel)) return undefined;
      const role = roleNow(people, session) ?? session.role;
      return dispatchPeople({ people, audit, endSessionsOf }, { person: session.person, role }, channel, payload);
    },
    onDispatched: (session, channel, ok) => {
      if (isRecorded(channel))
        audit.record({ action: 'request', person: session.person, role: roleNow(people, session), channel, ok });
    },
    unauthorizedText: 'Not signed in: open /auth/login.',
  };
}
