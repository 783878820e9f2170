/**
 * Selecting PostgreSQL by URL, and what a person is told when it fails: an unreachable server,
 * a wrong password, a schema a newer MiniHarness wrote, a refused write — each a coded error
 * whose message never shows the URL's user or password, and none loses what was stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresCheckpointStore, openPostgresCheckpoints } from '../../electron/checkpoints/postgresStore.js';
import { DatabaseRefusedError, DatabaseUnreachableError, SchemaTooNewError } from '../../electron/storage/errors.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import { redactDatabaseUrl, redactDatabaseUrls } from '../../electron/storage/postgres/url.js';
import { selectDatabase } from '../../electron/storage/selectDatabase.js';
import { callInput, textResult } from '../checkpoints/conformance.js';
import type { TestDatabase } from './postgres.js';
import { createTestDatabase, describePostgres } from './postgres.js';

const SECRET_URL = 'postgres://alice:s3cr3t-pa55@db.example.internal:6543/harness?sslmode=require&password=also-secret';

describe('selecting the database by URL', () => {
  it('keeps SQLite when no URL is given, and takes --database over the environment', () => {
    expect(selectDatabase(['node', 'core'], {})).toEqual({ kind: 'sqlite' });
    expect(selectDatabase([], { MINIHARNESS_DATABASE_URL: '' })).toEqual({ kind: 'sqlite' });
    expect(selectDatabase([], { MINIHARNESS_DATABASE_URL: SECRET_URL })).toMatchObject({
      kind: 'postgres',
      url: SECRET_URL,
    });
    const chosen = selectDatabase(['--database', 'postgresql://u:p@h/one'], { MINIHARNESS_DATABASE_URL: SECRET_URL });
    expect(chosen).toMatchObject({ kind: 'postgres', url: 'postgresql://u:p@h/one', where: 'postgresql://h/one' });
    expect(selectDatabase(['--database=postgres://h:1/x'], {})).toMatchObject({ where: 'postgres://h:1/x' });
  });

  it('shows a URL without its user, password or query, wherever it appears', () => {
    expect(redactDatabaseUrl(SECRET_URL)).toBe('postgres://db.example.internal:6543/harness');
    const text = redactDatabaseUrls(`connect ${SECRET_URL} failed; retry postgres://bob:hunter2@h/db`);
    expect(text).not.toMatch(/s3cr3t|alice|also-secret|hunter2|bob/);
    expect(redactDatabaseUrl('not a url with password hunter2')).not.toContain('hunter2');
  });

  it('refuses a URL that is not PostgreSQL, with a sentence and no secret', () => {
    const error = (() => {
      try {
        selectDatabase(['--database', 'mysql://root:toor@h/db'], {});
      } catch (e) {
        return e as DatabaseUnreachableError;
      }
      throw new Error('expected a refusal');
    })();
    expect(error).toBeInstanceOf(DatabaseUnreachableError);
    expect(error.code).toBe('database_unreachable');
    expect(JSON.stringify(error.toJSON())).not.toContain('toor');
  });

  it('says an unreachable server is unreachable, without the password', async () => {
    const error = await openPostgresCheckpoints('postgres://alice:s3cr3t-pa55@127.0.0.1:1/harness', {
      heartbeat: false,
    }).then(
      () => undefined,
      (e: unknown) => e as DatabaseUnreachableError,
    );
    expect(error).toBeInstanceOf(DatabaseUnreachableError);
    expect(error?.reason).toBe('ECONNREFUSED');
    expect(error?.message).toContain('postgres://127.0.0.1:1/harness');
    expect(error?.message).toMatch(/could not be reached/);
    expect(JSON.stringify(error?.toJSON())).not.toMatch(/s3cr3t|alice/);
  });
});

describePostgres('PostgreSQL refusals keep what is stored', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('selection');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('a wrong password or database is "unreachable" with the server\'s code and no password', async () => {
    const url = new URL(database.url);
    url.password = 'definitely-wrong-pw';
    url.pathname = '/no_such_database_here';
    const error = await openPostgresCheckpoints(url.toString(), { heartbeat: false }).then(
      () => undefined,
      (e: unknown) => e as DatabaseUnreachableError,
    );
    expect(error).toBeInstanceOf(DatabaseUnreachableError);
    expect(['28P01', '3D000']).toContain(error?.reason); // which one depends on the server's auth method
    expect(JSON.stringify(error?.toJSON())).not.toContain('definitely-wrong-pw');
  });

  async function admin(sql: string): Promise<void> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('SET default_transaction_read_only = off'); // this session may write even when the database is read-only
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  it('refuses a schema a newer MiniHarness wrote, and a refused write loses nothing', async () => {
    const opened = await openPostgresCheckpoints(database.url, { heartbeat: false });
    const claimed = await opened.storage.claim(callInput('kept'));
    if (claimed.kind !== 'owner') throw new Error('expected an owner');
    await opened.storage.complete('s1', 'kept', claimed.lease, textResult('stored before'));
    await opened.close();

    // A schema version this build does not know: refused at open, nothing touched.
    await admin(`UPDATE miniharness_schema SET version = 99 WHERE component = 'checkpoints'`);
    const tooNew = await openPostgresCheckpoints(database.url, { heartbeat: false }).catch((e: unknown) => e);
    expect(tooNew).toBeInstanceOf(SchemaTooNewError);
    expect((tooNew as SchemaTooNewError).message).toMatch(/schema version 99.*only knows up to 1/);
    await admin(`UPDATE miniharness_schema SET version = 1 WHERE component = 'checkpoints'`);

    // A server that refuses writes (the database turned read-only): a sentence with its SQLSTATE, at open and per write.
    const name = new URL(database.url).pathname.slice(1);
    await admin(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    try {
      const atOpen = await openPostgresCheckpoints(database.url, { heartbeat: false }).catch((e: unknown) => e);
      expect(atOpen).toBeInstanceOf(DatabaseRefusedError);
      expect((atOpen as DatabaseRefusedError).sqlState).toBe('25006');
      expect((atOpen as DatabaseRefusedError).message).toMatch(
        /refused to migrate its schema.*what was stored before is kept/,
      );

      const raw = await openPostgres(database.url);
      const store = new PostgresCheckpointStore(raw.pool, raw.where, { heartbeat: false });
      const write = await store.claim(callInput('new')).catch((e: unknown) => e);
      expect(write).toBeInstanceOf(DatabaseRefusedError);
      expect((write as DatabaseRefusedError).toJSON()).toMatchObject({ code: 'database_refused', sqlState: '25006' });
      // What was stored before is intact, and what a retry would replay (a claim is a write, so it waits for a writable server).
      const replay = await store.peek(callInput('kept'));
      expect(replay?.kind).toBe('replay');
      expect(replay?.record.result).toStrictEqual(textResult('stored before'));
      await raw.close();
    } finally {
      await admin(`ALTER DATABASE ${name} RESET default_transaction_read_only`);
    }
  });
});
