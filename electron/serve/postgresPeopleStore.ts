/**
 * People's roles, the bootstrap token and the API tokens in PostgreSQL (PeopleStorage,
 * peopleStore.ts), shared by every `miniharness serve` instance on the database (component
 * `serve_people`, tables `serve_people`, `serve_api_tokens`, `serve_bootstrap`).
 *
 * As the agents' store (gateway/postgresAgentStore.ts): everything is read at start and kept in
 * memory (a role is checked on every request, a token on every connection: no round trip), each
 * change is one statement stored before it is used and then announced on `mh_people`; the other
 * instances re-read on the notice, and after their listening connection comes back. The one
 * pending bootstrap token is one row: redeeming it deletes it and makes the admin in one statement,
 * so of two instances (or two people) only one first admin is made per database.
 */
import { randomUUID } from 'node:crypto';
import type { QueryResult, QueryResultRow } from 'pg';
import type { PostgresMigration } from '../storage/postgres/migrate.js';
import type { Listener } from '../storage/postgres/notify.js';
import { SerialQueue } from '../storage/postgres/serialQueue.js';
import { listen, publish } from '../storage/postgres/notify.js';
import type { PostgresDatabase } from '../storage/postgres/pool.js';
import { openPostgres, toStorageError } from '../storage/postgres/pool.js';
import type { PeopleStorage, PersonKey, StoredApiToken, StoredPerson } from './peopleStore.js';
import type { Role } from './roles.js';
import { ROLES } from './roles.js';

const POSTGRES_PEOPLE_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'serve people: roles of people who signed in, the API tokens (SHA-256 only), the pending bootstrap token',
    sql: `
      CREATE TABLE serve_people (
        issuer text NOT NULL,
        subject text NOT NULL,
        email text,
        name text,
        role text CHECK (role IN ('viewer', 'approver', 'admin')),
        last_sign_in_at bigint,
        PRIMARY KEY (issuer, subject)
      );
      CREATE TABLE serve_api_tokens (
        id text PRIMARY KEY,
        name text NOT NULL,
        role text NOT NULL CHECK (role IN ('viewer', 'approver', 'admin')),
        token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        created_by text NOT NULL,
        created_at bigint NOT NULL,
        last_used_at bigint,
        revoked_at bigint
      );
      CREATE UNIQUE INDEX serve_api_tokens_name_key ON serve_api_tokens (lower(name)) WHERE revoked_at IS NULL;
      CREATE TABLE serve_bootstrap (
        only_one boolean PRIMARY KEY DEFAULT true CHECK (only_one),
        token_hash text NOT NULL CHECK (token_hash ~ '^[0-9a-f]{64}$')
      );
    `,
  },
];

interface PersonRow {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  role: string | null;
  last_sign_in_at: number | null;
}

interface TokenRow {
  id: string;
  name: string;
  role: string;
  token_hash: string;
  created_by: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** The advisory lock key of changes that must keep an admin (any number, the same on every instance). */
const ADMIN_LOCK = 0x6d685f61;
const PERSON_COLUMNS = 'issuer, subject, email, name, role, last_sign_in_at';
const TOKEN_COLUMNS = 'id, name, role, token_hash, created_by, created_at, last_used_at, revoked_at';
const UNIQUE_VIOLATION = '23505';
const isRole = (value: string | null): value is Role => (ROLES as readonly (string | null)[]).includes(value);

function personOf(row: PersonRow): StoredPerson {
  return {
    issuer: row.issuer,
    subject: row.subject,
    ...(row.email !== null ? { email: row.email } : {}),
    ...(row.name !== null ? { name: row.name } : {}),
    ...(isRole(row.role) ? { role: row.role } : {}),
    ...(row.last_sign_in_at !== null ? { lastSignInAt: row.last_sign_in_at } : {}),
  };
}

function tokenOf(row: TokenRow): StoredApiToken | undefined {
  if (!isRole(row.role)) return undefined;
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    sha256: row.token_hash,
    createdBy: row.created_by,
    createdAt: row.created_at,
    ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at } : {}),
    ...(row.revoked_at !== null ? { revokedAt: row.revoked_at } : {}),
  };
}

export class PostgresPeopleStore implements PeopleStorage {
  private peopleList: StoredPerson[] = [];
  private tokenList: StoredApiToken[] = [];
  private readonly origin = randomUUID();
  private listener: Listener | undefined;
  /** Re-reads and this instance's own changes are applied in order, one at a time. */
  private readonly queue = new SerialQueue();
  private readonly listeners: Array<() => void> = [];

  private constructor(
    private readonly db: PostgresDatabase,
    private readonly warn: (message: string) => void,
  ) {}

  /** Connects (its own small pool), migrates its component, reads everything and listens on `mh_people`. */
  static async open(url: string, warn: (message: string) => void): Promise<PostgresPeopleStore> {
    const db = await openPostgres(url, { max: 3, migrations: { serve_people: POSTGRES_PEOPLE_MIGRATIONS } });
    const store = new PostgresPeopleStore(db, warn);
    try {
      store.listener = await listen(
        url,
        ['mh_people'],
        (_channel, notice) => {
          if (notice.from !== store.origin) store.reread();
        },
        () => store.reread(),
      );
      await store.queue.run(() => store.read());
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  people(): readonly StoredPerson[] {
    return this.peopleList;
  }

  tokens(): readonly StoredApiToken[] {
    return this.tokenList;
  }

  async setBootstrap(sha256: string): Promise<void> {
    await this.write('keep the bootstrap token', (pool) =>
      pool.query(
        `INSERT INTO serve_bootstrap (only_one, token_hash) VALUES (true, $1)
         ON CONFLICT (only_one) DO UPDATE SET token_hash = EXCLUDED.token_hash`,
        [sha256],
      ),
    );
  }

  async redeemBootstrap(sha256: string, person: StoredPerson): Promise<boolean> {
    const result = await this.write('use the bootstrap token', (pool) =>
      pool.query(
        `WITH used AS (DELETE FROM serve_bootstrap WHERE token_hash = $1 RETURNING 1)
         INSERT INTO serve_people (${PERSON_COLUMNS}) SELECT $2, $3, $4, $5, 'admin', $6 FROM used
         ON CONFLICT (issuer, subject) DO UPDATE SET role = 'admin'`,
        [sha256, ...this.personValues(person)],
      ),
    );
    if (result.rowCount === 0) return false;
    await this.changed();
    return true;
  }

  async seen(person: StoredPerson): Promise<void> {
    await this.write('record a sign-in', (pool) =>
      pool.query(
        `INSERT INTO serve_people (${PERSON_COLUMNS}) VALUES ($1, $2, $3, $4, NULL, $5)
         ON CONFLICT (issuer, subject) DO UPDATE SET email = EXCLUDED.email, name = EXCLUDED.name,
           last_sign_in_at = EXCLUDED.last_sign_in_at`,
        this.personValues(person),
      ),
    );
    await this.changed();
  }

  async setRole(
    key: PersonKey,
    role: Role,
    keepAnotherAdmin = false,
  ): Promise<StoredPerson | undefined | 'last_admin'> {
    const result = await this.guarded<PersonRow>(
      'change a role',
      key,
      keepAnotherAdmin,
      `UPDATE serve_people SET role = $3 WHERE issuer = $1 AND subject = $2 RETURNING ${PERSON_COLUMNS}`,
      [key.issuer, key.subject, role],
    );
    if (result === 'last_admin') return result;
    const row = result.rows[0];
    if (!row) return undefined;
    await this.changed();
    return personOf(row);
  }

  async remove(key: PersonKey, keepAnotherAdmin = false): Promise<boolean | 'last_admin'> {
    const result = await this.guarded(
      'remove a person',
      key,
      keepAnotherAdmin,
      'DELETE FROM serve_people WHERE issuer = $1 AND subject = $2',
      [key.issuer, key.subject],
    );
    if (result === 'last_admin') return result;
    if (result.rowCount === 0) return false;
    await this.changed();
    return true;
  }

  async addToken(token: StoredApiToken): Promise<boolean> {
    try {
      await this.db.pool.query(
        `INSERT INTO serve_api_tokens (${TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, NULL, NULL)`,
        [token.id, token.name, token.role, token.sha256, token.createdBy, token.createdAt],
      );
    } catch (error) {
      const { code, constraint } = error as { code?: unknown; constraint?: unknown };
      if (code === UNIQUE_VIOLATION && constraint === 'serve_api_tokens_name_key') return false;
      throw toStorageError(error, this.db.where, 'create an API token');
    }
    await this.changed();
    return true;
  }

  async revokeToken(id: string, at: number): Promise<StoredApiToken | undefined> {
    const result = await this.write('revoke an API token', (pool) =>
      pool.query<TokenRow>(
        `UPDATE serve_api_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING ${TOKEN_COLUMNS}`,
        [id, at],
      ),
    );
    const row = result.rows[0];
    if (!row) return undefined;
    await this.changed();
    return tokenOf(row);
  }

  async touchToken(id: string, at: number): Promise<void> {
    this.tokenList = this.tokenList.map((t) => (t.id === id ? { ...t, lastUsedAt: at } : t));
    await this.write('note an API token’s use', (pool) =>
      pool.query('UPDATE serve_api_tokens SET last_used_at = GREATEST(COALESCE(last_used_at, 0), $2) WHERE id = $1', [
        id,
        at,
      ]),
    );
  }

  onChange(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  async close(): Promise<void> {
    await this.listener?.close();
    await this.queue.idle();
    await this.db.close();
  }

  private personValues(person: StoredPerson): unknown[] {
    return [person.issuer, person.subject, person.email ?? null, person.name ?? null, person.lastSignInAt ?? null];
  }

  private async write<T>(operation: string, run: (pool: PostgresDatabase['pool']) => Promise<T>): Promise<T> {
    try {
      return await run(this.db.pool);
    } catch (error) {
      throw toStorageError(error, this.db.where, operation);
    }
  }

  /**
   * One change of a person; with `keepAnotherAdmin`, in a transaction that first takes the people's admin lock
   * and checks that someone else keeps the admin role. The lock orders two such changes (two admins demoting
   * each other on two instances): the second reads after the first committed, and is refused.
   */
  private async guarded<R extends QueryResultRow = QueryResultRow>(
    operation: string,
    key: PersonKey,
    keepAnotherAdmin: boolean,
    sql: string,
    values: unknown[],
  ): Promise<QueryResult<R> | 'last_admin'> {
    if (!keepAnotherAdmin) return this.write(operation, (pool) => pool.query<R>(sql, values));
    return this.write(operation, async (pool) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [ADMIN_LOCK]);
        const other = await client.query(
          `SELECT 1 FROM serve_people WHERE role = 'admin' AND NOT (issuer = $1 AND subject = $2) LIMIT 1`,
          [key.issuer, key.subject],
        );
        if (other.rowCount === 0) {
          await client.query('ROLLBACK');
          return 'last_admin';
        }
        const result = await client.query<R>(sql, values);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    });
  }

  /** This instance's change: read back (so it is used at once here), then told to the others. */
  private async changed(): Promise<void> {
    await this.queue.run(() => this.read());
    await publish(this.db.pool, 'mh_people', { kind: 'people', from: this.origin }).catch(() =>
      this.warn('Another MiniHarness instance on the database may not see this change of people until its next one.'),
    );
  }

  private reread(): void {
    void this.queue
      .coalesced(async () => {
        await this.read();
        for (const listener of this.listeners) listener();
      })
      ?.catch((error: unknown) =>
        this.warn(
          `People and API tokens could not be re-read from the database: ${toStorageError(error, this.db.where, 'read people').message}`,
        ),
      );
  }

  private async read(): Promise<void> {
    const [people, tokens] = await this.write('read people and API tokens', (pool) =>
      Promise.all([
        pool.query<PersonRow>(`SELECT ${PERSON_COLUMNS} FROM serve_people ORDER BY issuer, subject`),
        pool.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM serve_api_tokens ORDER BY created_at, id`),
      ]),
    );
    this.peopleList = people.rows.map(personOf);
    this.tokenList = tokens.rows.map(tokenOf).filter((t) => t !== undefined);
  }
}
