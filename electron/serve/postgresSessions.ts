/**
 * People's sessions in PostgreSQL (sessions.ts `Sessions`), shared by the instances on one
 * database: a person signed in through one instance is accepted by every other (no affinity at
 * the balancer), a restart signs nobody out, and a sign-out on one instance ends the session on all.
 *
 * How an ended session is seen everywhere: both ways, each where it is cheap.
 * - Every HTTP request that asks "who is this" (the page, `/session`, `/auth/me`, the bridge's
 *   upgrade) reads the row: one primary-key SELECT (a fraction of a millisecond on loopback), done
 *   once per page load — a sign-out is never missed there, whatever the notifications do.
 * - An open bridge sends many requests per second; reading the row for each would cost a query
 *   per click. It is ended by LISTEN/NOTIFY instead: the DELETE notifies `mh_sessions` in its own
 *   statement (sent on commit), every instance marks the id ended, and the host closes the
 *   bridges of that session. If the listening connection drops, notices are lost: on its return,
 *   the sessions this instance handed out are read again and the missing ones end.
 *
 * Expiry is PostgreSQL's clock (`expires_at > now()` in every read); only the SHA-256 of the cookie
 * and of the bridge token are stored.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { newToken, tokensEqual } from '../security/loopbackAccess.js';
import { hashToken } from '../security/tokenHash.js';
import type { Listener, Notice } from '../storage/postgres/notify.js';
import { listen } from '../storage/postgres/notify.js';
import type { PgPool } from '../storage/postgres/pool.js';
import type { Pending, PendingSignIns } from './oidcSignIn.js';
import type { Person } from './people.js';
import type { Role } from './roles.js';
import { ROLES } from './roles.js';
import type { NewSession, Session, Sessions } from './sessions.js';
import { SESSION_MS, SessionCookies } from './sessions.js';

const PersonSchema = z.object({
  issuer: z.string(),
  subject: z.string(),
  email: z.string().optional(),
  name: z.string().optional(),
});

interface Row {
  person: unknown;
  role: string;
  bridge_sha256: string;
  expires_ms: number;
}

/** The ids this instance handed out, re-read after a lost listening connection; bounded. */
const MAX_KNOWN = 10_000;

/** One statement: delete, and notify each deleted id (sent when it commits). */
const endWhere = (where: string): string => `
  WITH gone AS (DELETE FROM serve_sessions WHERE ${where} RETURNING cookie_sha256)
  SELECT pg_notify('mh_sessions', json_build_object('kind', 'ended', 'ids', json_build_object('session', cookie_sha256), 'from', $1::text)::text)
  FROM gone`;

export class PostgresSessions extends SessionCookies implements Sessions {
  /** Sessions ended (here or elsewhere) that a bridge may still hold, with their expiry. */
  readonly #ended = new Map<string, number>();
  readonly #known = new Map<string, number>();
  /** Issuer and subject of the sessions known here, for `endFor`'s immediate effect. */
  readonly #personOf = new Map<string, string>();
  readonly #from = randomUUID();
  #listener: Listener | undefined;

  private constructor(
    private readonly pool: PgPool,
    secure: boolean,
  ) {
    super(secure);
  }

  /** Listens to `mh_sessions` on a connection of its own (`url`); the tables are made by SERVE_SESSION_MIGRATIONS. */
  static async open(pool: PgPool, url: string, secure: boolean): Promise<PostgresSessions> {
    const sessions = new PostgresSessions(pool, secure);
    sessions.#listener = await listen(
      url,
      ['mh_sessions'],
      (_channel, notice) => sessions.#heard(notice),
      () => void sessions.#resync().catch(() => undefined),
    );
    return sessions;
  }

  async create(person: Person, role: Role): Promise<NewSession> {
    const cookie = newToken();
    const bridgeToken = newToken();
    const id = hashToken(cookie);
    // Sign-ins are rare: each clears the expired rows (the index on expires_at makes it cheap).
    await this.pool.query('DELETE FROM serve_sessions WHERE expires_at <= now()');
    const { rows } = await this.pool.query<{ expires_ms: number }>(
      `INSERT INTO serve_sessions (cookie_sha256, bridge_sha256, issuer, subject, person, role, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
       RETURNING (extract(epoch FROM expires_at) * 1000)::bigint AS expires_ms`,
      [id, hashToken(bridgeToken), person.issuer, person.subject, JSON.stringify(person), role, SESSION_MS / 1000],
    );
    const session: Session = { id, person, role, expiresAt: rows[0]?.expires_ms ?? Date.now() + SESSION_MS };
    this.#remember(session);
    return { session, cookie, bridgeToken };
  }

  async find(req: IncomingMessage, bridgeToken: string | undefined): Promise<Session | undefined> {
    const id = this.idOf(req);
    if (id === undefined || bridgeToken === undefined) return undefined;
    const row = await this.#read(id);
    if (!row || !tokensEqual(row.bridge_sha256, hashToken(bridgeToken))) return undefined;
    const person = PersonSchema.safeParse(row.person);
    const role = ROLES.find((r) => r === row.role);
    if (!person.success || !role) return undefined;
    const session: Session = { id, person: person.data, role, expiresAt: row.expires_ms };
    this.#remember(session);
    return session;
  }

  async signedIn(req: IncomingMessage): Promise<boolean> {
    const id = this.idOf(req);
    return id !== undefined && (await this.#read(id)) !== undefined;
  }

  alive(session: Session): boolean {
    if (session.api) return true;
    return !this.#ended.has(session.id) && session.expiresAt > Date.now();
  }

  async end(session: Session): Promise<void> {
    this.#markEnded(session.id, session.expiresAt);
    await this.pool.query(endWhere('cookie_sha256 = $2'), [this.#from, session.id]);
    this.ended();
  }

  async endFor(person: Person): Promise<number> {
    const { rowCount } = await this.pool.query(endWhere('issuer = $2 AND subject = $3'), [
      this.#from,
      person.issuer,
      person.subject,
    ]);
    // Marked here too, before the echo of the notice: this instance's bridges close at once.
    for (const [id, expiresAt] of this.#known)
      if (this.#personOf.get(id) === `${person.issuer}\n${person.subject}`) this.#markEnded(id, expiresAt);
    this.ended();
    return rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.#listener?.close();
  }

  #remember(session: Session): void {
    if (this.#known.size >= MAX_KNOWN) {
      const now = Date.now();
      for (const [id, expiresAt] of this.#known) if (expiresAt <= now) this.#forget(id);
      if (this.#known.size >= MAX_KNOWN) this.#forget(this.#known.keys().next().value as string);
    }
    this.#known.set(session.id, session.expiresAt);
    this.#personOf.set(session.id, `${session.person.issuer}\n${session.person.subject}`);
  }

  #forget(id: string): void {
    this.#known.delete(id);
    this.#personOf.delete(id);
  }

  #markEnded(id: string, expiresAt: number): void {
    if (this.#ended.size >= MAX_KNOWN) {
      const now = Date.now();
      for (const [endedId, until] of this.#ended) if (until <= now) this.#ended.delete(endedId);
    }
    // Kept until it would have expired anyway (then `alive` refuses it by its expiry).
    this.#ended.set(id, expiresAt);
    this.#forget(id);
  }

  #heard(notice: Notice): void {
    const id = notice.ids?.session;
    if (notice.kind !== 'ended' || id === undefined) return;
    this.#markEnded(id, this.#known.get(id) ?? Date.now() + SESSION_MS);
    this.ended();
  }

  /** After a lost listening connection: the sessions handed out here that are gone from the table end. */
  async #resync(): Promise<void> {
    const ids = [...this.#known.keys()];
    if (ids.length === 0) return;
    const { rows } = await this.pool.query<{ cookie_sha256: string }>(
      'SELECT cookie_sha256 FROM serve_sessions WHERE cookie_sha256 = ANY($1) AND expires_at > now()',
      [ids],
    );
    const live = new Set(rows.map((r) => r.cookie_sha256));
    for (const id of ids) if (!live.has(id)) this.#markEnded(id, this.#known.get(id) ?? Date.now());
    this.ended();
  }

  async #read(id: string): Promise<Row | undefined> {
    const { rows } = await this.pool.query<Row>(
      `SELECT person, role, bridge_sha256, (extract(epoch FROM expires_at) * 1000)::bigint AS expires_ms
       FROM serve_sessions WHERE cookie_sha256 = $1 AND expires_at > now()`,
      [id],
    );
    return rows[0];
  }
}

/** OpenID Connect sign-ins between their two requests, in PostgreSQL: the callback may reach another instance. */
export class PostgresPendingSignIns implements PendingSignIns {
  constructor(private readonly pool: PgPool) {}

  async put(state: string, pending: Pending, ttlMs: number): Promise<void> {
    await this.pool.query('DELETE FROM serve_signins WHERE expires_at <= now()');
    await this.pool.query(
      `INSERT INTO serve_signins (state_sha256, verifier, nonce, bootstrap_sha256, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [hashToken(state), pending.verifier, pending.nonce, pending.bootstrapSha256 ?? null, ttlMs / 1000],
    );
  }

  /** Once: the row is deleted as it is read; an expired one is not given. */
  async take(state: string): Promise<Pending | undefined> {
    const { rows } = await this.pool.query<{
      verifier: string;
      nonce: string;
      bootstrap_sha256: string | null;
      live: boolean;
    }>(
      `DELETE FROM serve_signins WHERE state_sha256 = $1 RETURNING verifier, nonce, bootstrap_sha256, expires_at > now() AS live`,
      [hashToken(state)],
    );
    const row = rows[0];
    if (!row?.live) return undefined;
    return {
      verifier: row.verifier,
      nonce: row.nonce,
      ...(row.bootstrap_sha256 ? { bootstrapSha256: row.bootstrap_sha256 } : {}),
    };
  }
}
