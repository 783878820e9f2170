/**
 * The gateway's clients, grants, access and refresh tokens in PostgreSQL (OAuthStorage,
 * oauthStore.ts), shared by the instances on one database: a client registered and signed in
 * through one instance refreshes its token, and is authenticated, through another. The signing
 * key of ID tokens is one row, made by the first instance and used by all (one JWKS).
 *
 * Kept as the file keeps them, no weaker: a token or code is stored under its SHA-256 with its
 * value (`jti`) dropped from the payload; the signing key as it is (as in the 0600 file — whoever
 * may read the database may read it). The short-lived records (interactions, browser sessions,
 * codes in flight) stay in this process's memory (an OAuthStore without a file): a sign-in
 * finishes on the instance it started on.
 *
 * Every statement runs alone under READ COMMITTED: an upsert is one `INSERT … ON CONFLICT`, a
 * consume one UPDATE, so two instances never lose each other's write. The grant states the Agents
 * view reads synchronously are a summary re-read after each write here and on each `mh_lists`
 * notice (kind `oauth`) from the others.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Listener } from '../../storage/postgres/notify.js';
import { listen, publish } from '../../storage/postgres/notify.js';
import type { PgPool } from '../../storage/postgres/pool.js';
import { toStorageError } from '../../storage/postgres/pool.js';
import type { PostgresMigration } from '../../storage/postgres/migrate.js';
import type { GrantState, OAuthStorage } from './oauthStore.js';
import { DURABLE, ISSUED, MAX_CLIENTS, MAX_TOKENS_PER_GRANT, OAuthStore, SECRET_IDS, hashOf } from './oauthStore.js';

export const POSTGRES_OAUTH_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: "gateway OAuth: clients, grants and tokens (tokens under their hash), the ID tokens' signing key",
    sql: `
      CREATE TABLE gateway_oauth_records (
        -- model:id, or model:sha256(token) for tokens and codes (oauthStore.ts keyOf).
        key text PRIMARY KEY,
        model text NOT NULL,
        grant_id text,
        payload text NOT NULL,
        expires_at bigint,
        seq bigint GENERATED ALWAYS AS IDENTITY
      );
      CREATE INDEX gateway_oauth_by_grant ON gateway_oauth_records (grant_id, model);
      CREATE TABLE gateway_oauth_key (
        id smallint PRIMARY KEY CHECK (id = 1),
        jwk text NOT NULL
      );
    `,
  },
];

interface Row {
  key: string;
  model: string;
  grant_id: string | null;
  payload: string;
  expires_at: number | null;
}

/** A token row as the grant summary needs it. */
interface GrantFact {
  model: string;
  grantId: string;
  expiresAt: number | null;
  consumed: boolean;
}

export class PostgresOAuthStore implements OAuthStorage {
  readonly #memory = new OAuthStore(undefined);
  readonly cookieKey = this.#memory.cookieKey;
  onGrantsChanged: (() => void) | undefined;
  #facts: GrantFact[] = [];
  #listener: Listener | undefined;

  private constructor(
    private readonly pool: PgPool,
    private readonly where: string,
    private readonly origin: string,
    private readonly signingKey: Record<string, unknown>,
    private readonly now: () => number,
  ) {}

  /** Reads (or makes, once for all instances) the signing key and the grant summary. */
  static async open(
    pool: PgPool,
    where: string,
    origin: string,
    now: () => number = Date.now,
  ): Promise<PostgresOAuthStore> {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const made = JSON.stringify({ ...jwk, use: 'sig', alg: 'ES256', kid: randomBytes(8).toString('hex') });
    let key: string;
    try {
      await pool.query('INSERT INTO gateway_oauth_key (id, jwk) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [made]);
      key = (await pool.query<{ jwk: string }>('SELECT jwk FROM gateway_oauth_key WHERE id = 1')).rows[0]?.jwk ?? made;
    } catch (error) {
      throw toStorageError(error, where, "read the agents' sign-in key");
    }
    const store = new PostgresOAuthStore(pool, where, origin, JSON.parse(key) as Record<string, unknown>, now);
    await store.refreshGrants();
    return store;
  }

  /** Hears the other instances' grant changes (the Agents view's sign-in states); resolves once listening. */
  async follow(url: string): Promise<void> {
    const refresh = () =>
      void this.refreshGrants().then(
        () => this.onGrantsChanged?.(),
        () => undefined,
      );
    this.#listener = await listen(
      url,
      ['mh_lists'],
      (_channel, notice) => {
        if (notice.kind === 'oauth' && notice.from !== this.origin) refresh();
      },
      refresh,
    );
  }

  async close(): Promise<void> {
    await this.#listener?.close();
  }

  adapterFor(model: string): Adapter {
    if (!DURABLE.has(model)) return this.#memory.adapterFor(model);
    const keyOf = (id: string): string => `${model}:${SECRET_IDS.has(model) ? hashOf(id) : id}`;
    const payloadOf = (row: Row, id: string): AdapterPayload => {
      const payload = JSON.parse(row.payload) as AdapterPayload;
      return SECRET_IDS.has(model) ? { ...payload, jti: id } : payload;
    };
    return {
      upsert: async (id, payload, expiresIn) => {
        const kept: AdapterPayload = { ...payload };
        if (SECRET_IDS.has(model)) delete kept.jti;
        await this.put(model, keyOf(id), kept, typeof expiresIn === 'number' ? this.now() + expiresIn * 1000 : null);
      },
      find: async (id) => {
        const row = await this.row(keyOf(id));
        return row ? payloadOf(row, id) : undefined;
      },
      findByUid: async (uid) => this.findWhere(model, 'uid', uid),
      findByUserCode: async (userCode) => this.findWhere(model, 'userCode', userCode),
      consume: async (id) => {
        await this.write(
          'consume a token',
          `UPDATE gateway_oauth_records SET payload = (payload::jsonb || jsonb_build_object('consumed', $2::bigint))::text
           WHERE key = $1`,
          [keyOf(id), Math.floor(this.now() / 1000)],
        );
      },
      destroy: async (id) => {
        await this.write('remove a sign-in record', 'DELETE FROM gateway_oauth_records WHERE key = ANY ($1)', [
          model === 'Grant' ? [keyOf(id), `${ISSUED}:${id}`] : [keyOf(id)],
        ]);
      },
      revokeByGrantId: async (grantId) => {
        await this.write('end a grant', 'DELETE FROM gateway_oauth_records WHERE model = $1 AND grant_id = $2', [
          model,
          grantId,
        ]);
      },
    };
  }

  async revokeGrant(grantId: string): Promise<void> {
    await this.write('end a grant', 'DELETE FROM gateway_oauth_records WHERE key = $1 OR grant_id = $2', [
      `Grant:${grantId}`,
      grantId,
    ]);
  }

  /** As OAuthStore.grantState, from the summary read after the last change this process saw. */
  grantState(grantId: string): GrantState {
    const now = this.now();
    const facts = this.#facts.filter((f) => f.grantId === grantId);
    if (!facts.some((f) => f.model === 'Grant' && (f.expiresAt === null || f.expiresAt > now))) return 'ended';
    for (const fact of facts) {
      const valid = fact.expiresAt === null || fact.expiresAt > now;
      if (valid && (fact.model === 'AccessToken' || (fact.model === 'RefreshToken' && !fact.consumed))) return 'active';
    }
    return facts.some((f) => f.model === ISSUED) ? 'expired' : 'waiting';
  }

  signingJwk(): Record<string, unknown> {
    return this.signingKey;
  }

  /** Reads again what grantState answers from. */
  async refreshGrants(): Promise<void> {
    const rows = await this.rows<{ model: string; grant_id: string; expires_at: number | null; consumed: boolean }>(
      "read the agents' sign-in states",
      `SELECT model, grant_id, expires_at, (payload::jsonb ? 'consumed') AS consumed FROM gateway_oauth_records
       WHERE grant_id IS NOT NULL AND model IN ('Grant', 'AccessToken', 'RefreshToken', '${ISSUED}')`,
      [],
    );
    this.#facts = rows.map((r) => ({
      model: r.model,
      grantId: r.grant_id,
      expiresAt: r.expires_at,
      consumed: r.consumed,
    }));
  }

  private async put(model: string, key: string, payload: AdapterPayload, expiresAt: number | null): Promise<void> {
    const grantId = typeof payload.grantId === 'string' ? payload.grantId : model === 'Grant' ? key.slice(6) : null;
    const sql = `INSERT INTO gateway_oauth_records (key, model, grant_id, payload, expires_at) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (key) DO UPDATE SET payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at, grant_id = EXCLUDED.grant_id`;
    await this.rows('store a sign-in record', sql, [key, model, grantId, JSON.stringify(payload), expiresAt]);
    if (model === 'Client') await this.forgetUnusedClients();
    if ((model === 'AccessToken' || model === 'RefreshToken') && grantId !== null) {
      await this.keepNewestTokens(model, grantId);
      await this.rows(
        'note an issued token',
        `INSERT INTO gateway_oauth_records (key, model, grant_id, payload) VALUES ($1, $2, $3, $4) ON CONFLICT (key) DO NOTHING`,
        [`${ISSUED}:${grantId}`, ISSUED, grantId, JSON.stringify({ grantId })],
      );
    }
    if (model !== 'Client') await this.changed();
  }

  /** Beyond MAX_CLIENTS, the oldest clients no grant uses go (as the file does). */
  private async forgetUnusedClients(): Promise<void> {
    await this.rows(
      'forget unused clients',
      `DELETE FROM gateway_oauth_records WHERE key IN (
         SELECT c.key FROM gateway_oauth_records c
         WHERE c.model = 'Client' AND NOT EXISTS (
           SELECT 1 FROM gateway_oauth_records g WHERE g.model = 'Grant' AND g.payload::jsonb ->> 'clientId' = substr(c.key, 8))
         ORDER BY c.seq
         LIMIT GREATEST(0, (SELECT count(*) FROM gateway_oauth_records WHERE model = 'Client') - $1))`,
      [MAX_CLIENTS],
    );
  }

  /** Per grant, at most MAX_TOKENS_PER_GRANT of each kind: expired first, then consumed, then the oldest. */
  private async keepNewestTokens(model: string, grantId: string): Promise<void> {
    await this.rows(
      'keep the newest tokens',
      `DELETE FROM gateway_oauth_records WHERE key IN (
         SELECT key FROM gateway_oauth_records WHERE model = $1 AND grant_id = $2
         ORDER BY CASE WHEN expires_at IS NOT NULL AND expires_at <= $3 THEN 0
                       WHEN payload::jsonb ? 'consumed' THEN 1 ELSE 2 END, seq
         LIMIT GREATEST(0, (SELECT count(*) FROM gateway_oauth_records WHERE model = $1 AND grant_id = $2) - $4))`,
      [model, grantId, this.now(), MAX_TOKENS_PER_GRANT],
    );
  }

  private async row(key: string): Promise<Row | undefined> {
    const [row] = await this.rows<Row>(
      'read a sign-in record',
      'SELECT * FROM gateway_oauth_records WHERE key = $1 AND (expires_at IS NULL OR expires_at > $2)',
      [key, this.now()],
    );
    return row;
  }

  private async findWhere(
    model: string,
    field: 'uid' | 'userCode',
    value: string,
  ): Promise<AdapterPayload | undefined> {
    const [row] = await this.rows<Row>(
      'read a sign-in record',
      `SELECT * FROM gateway_oauth_records WHERE model = $1 AND payload::jsonb ->> $2 = $3
       AND (expires_at IS NULL OR expires_at > $4) LIMIT 1`,
      [model, field, value, this.now()],
    );
    return row ? (JSON.parse(row.payload) as AdapterPayload) : undefined;
  }

  private async write(operation: string, sql: string, params: unknown[]): Promise<void> {
    let count: number;
    try {
      count = (await this.pool.query(sql, params)).rowCount ?? 0;
    } catch (error) {
      throw toStorageError(error, this.where, operation);
    }
    if (count > 0) await this.changed();
  }

  /** A grant or its tokens changed: the summary is read again, the Agents views here and elsewhere are told. */
  private async changed(): Promise<void> {
    await this.refreshGrants();
    this.onGrantsChanged?.();
    await publish(this.pool, 'mh_lists', { kind: 'oauth', from: this.origin }).catch(() => undefined);
  }

  private async rows<T extends pg.QueryResultRow>(operation: string, sql: string, params: unknown[]): Promise<T[]> {
    try {
      return (await this.pool.query<T>(sql, params)).rows;
    } catch (error) {
      throw toStorageError(error, this.where, operation);
    }
  }
}
