/**
 * The gateway's sign-in store (OAuthStorage) the same on both implementations — the data folder's
 * file (OAuthStore) and PostgreSQL (PostgresOAuthStore): durable clients, grants and tokens that a
 * second store over the same place (a restart; on PostgreSQL, another instance) finds; a token's
 * value never at rest; refresh-token rotation (consume) seen there; the grant states; a revoked
 * grant ends every token of it; registration bounded. On PostgreSQL also: a refresh token issued
 * through one instance is found, rotated and ended through another, whose sign-in states follow.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { OAuthStorage } from '../../electron/gateway/oauth/oauthStore.js';
import { MAX_CLIENTS, OAuthStore } from '../../electron/gateway/oauth/oauthStore.js';
import { POSTGRES_OAUTH_MIGRATIONS, PostgresOAuthStore } from '../../electron/gateway/oauth/postgresOAuthStore.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

const ACCESS = 'access-token-value-0123456789abcdefghijklmnopq';
const REFRESH = 'refresh-token-value-0123456789abcdefghijklmnop';

interface Subject {
  /** A store over the same place: a restart (file) or another instance (PostgreSQL). */
  open(): Promise<OAuthStorage>;
  /** Everything stored at rest, as text. */
  atRest(): Promise<string>;
}

async function signedIn(store: OAuthStorage, grantId: string): Promise<void> {
  await store.adapterFor('Client').upsert(`client-${grantId}`, { client_id: `client-${grantId}` } as never);
  await store
    .adapterFor('Grant')
    .upsert(grantId, { jti: grantId, accountId: 'p', clientId: `client-${grantId}` } as never, 600);
}

function describeOAuthStore(name: string, subject: () => Promise<Subject>): void {
  describe(`${name}: the gateway's sign-in store`, () => {
    it('keeps clients, grants and tokens for another store over the same place, never a token’s value', async () => {
      const place = await subject();
      const store = await place.open();
      await signedIn(store, 'grant-1');
      expect(store.grantState('grant-1')).toBe('waiting');
      await store.adapterFor('AccessToken').upsert(ACCESS, { jti: ACCESS, grantId: 'grant-1' } as never, 600);
      await store.adapterFor('RefreshToken').upsert(REFRESH, { jti: REFRESH, grantId: 'grant-1' } as never, 600);
      await store.adapterFor('Interaction').upsert('uid-1', { jti: 'uid-1' } as never, 600);
      expect(store.grantState('grant-1')).toBe('active');
      const key = store.signingJwk();

      const rest = await place.atRest();
      expect(rest).toContain('client-grant-1');
      expect(rest).not.toContain(ACCESS);
      expect(rest).not.toContain(REFRESH);

      const other = await place.open();
      expect(await other.adapterFor('AccessToken').find(ACCESS)).toMatchObject({ jti: ACCESS, grantId: 'grant-1' });
      expect(await other.adapterFor('AccessToken').find('another-value')).toBeUndefined();
      expect(await other.adapterFor('Client').find('client-grant-1')).toMatchObject({ client_id: 'client-grant-1' });
      expect(await other.adapterFor('Interaction').find('uid-1')).toBeUndefined();
      expect(other.signingJwk()).toEqual(key);
      expect(other.grantState('grant-1')).toBe('active');

      // Rotation: the refresh token consumed through the other store is consumed for both.
      await other.adapterFor('RefreshToken').consume(REFRESH);
      expect(await (await place.open()).adapterFor('RefreshToken').find(REFRESH)).toMatchObject({
        consumed: expect.any(Number),
      });
    });

    it('revoking a grant ends it and every token of it, and only those', async () => {
      const place = await subject();
      const store = await place.open();
      await signedIn(store, 'g-a');
      await signedIn(store, 'g-b');
      await store.adapterFor('AccessToken').upsert('tok-a', { jti: 'tok-a', grantId: 'g-a' } as never, 600);
      await store.adapterFor('AccessToken').upsert('tok-b', { jti: 'tok-b', grantId: 'g-b' } as never, 600);
      await store.revokeGrant('g-a');
      const other = await place.open();
      expect(await other.adapterFor('AccessToken').find('tok-a')).toBeUndefined();
      expect(await other.adapterFor('Grant').find('g-a')).toBeUndefined();
      expect(await other.adapterFor('AccessToken').find('tok-b')).toBeDefined();
      expect(other.grantState('g-a')).toBe('ended');
      expect(other.grantState('g-b')).toBe('active');
    });

    it('an expired token is not found, and its grant reads expired', async () => {
      const place = await subject();
      const store = await place.open();
      await signedIn(store, 'g-x');
      await store.adapterFor('AccessToken').upsert('tok-x', { jti: 'tok-x', grantId: 'g-x' } as never, -1);
      expect(await store.adapterFor('AccessToken').find('tok-x')).toBeUndefined();
      expect((await place.open()).grantState('g-x')).toBe('expired');
    });

    it('open registration cannot grow the store without bound: unused clients beyond the cap go, oldest first', async () => {
      const place = await subject();
      const store = await place.open();
      await signedIn(store, 'kept');
      for (let i = 0; i < MAX_CLIENTS + 5; i++)
        await store.adapterFor('Client').upsert(`c${i}`, { client_id: `c${i}` } as never);
      const other = await place.open();
      expect(await other.adapterFor('Client').find('client-kept')).toBeDefined(); // a grant uses it
      expect(await other.adapterFor('Client').find('c0')).toBeUndefined();
      expect(await other.adapterFor('Client').find(`c${MAX_CLIENTS + 4}`)).toBeDefined();
    });
  });
}

describeOAuthStore('file', async () => {
  const scratch = scratchDir('mh-oauth-conf-');
  const file = join(scratch.dir, 'gateway-oauth.json');
  return { open: async () => new OAuthStore(file), atRest: async () => readFileSync(file, 'utf8') };
});

describePostgres('PostgreSQL sign-in store', () => {
  const databases: TestDatabase[] = [];
  const opened: Array<PostgresDatabase | PostgresOAuthStore> = [];
  afterAll(async () => {
    for (const item of opened.reverse()) await item.close();
    for (const database of databases) await database.drop();
  });
  let instance = 0;
  /** A new database for each test. */
  const create = async (): Promise<string> => {
    const database = await createTestDatabase(`oauth${databases.length}`);
    databases.push(database);
    return database.url;
  };
  /** Another instance on `url`: a pool and a store of its own, listening. */
  const openStore = async (url: string): Promise<PostgresOAuthStore> => {
    const db = await openPostgres(url, { migrations: { gateway_oauth: POSTGRES_OAUTH_MIGRATIONS }, max: 3 });
    opened.push(db);
    const store = await PostgresOAuthStore.open(db.pool, db.where, `instance-${instance++}`);
    await store.follow(url);
    opened.push(store);
    return store;
  };
  const text = async (url: string, sql: string): Promise<string> => {
    const db = await openPostgres(url, { max: 1 });
    try {
      return (await db.pool.query<{ t: string }>(sql)).rows.map((r) => r.t).join('\n');
    } finally {
      await db.close();
    }
  };

  describeOAuthStore('PostgreSQL', async () => {
    const url = await create();
    return {
      open: () => openStore(url),
      atRest: async () =>
        (await text(url, 'SELECT row_to_json(r)::text AS t FROM gateway_oauth_records r')) +
        (await text(url, 'SELECT jwk AS t FROM gateway_oauth_key')),
    };
  });

  it("a sign-in on one instance is followed by the other's sign-in states, told as it changes", async () => {
    const url = await create();
    const a = await openStore(url);
    const b = await openStore(url);
    let told: () => void = () => undefined;
    b.onGrantsChanged = () => told();
    const until = (state: string) =>
      new Promise<void>((resolve) => {
        told = () => b.grantState('live') === state && resolve();
        told();
      });
    const signed = until('active');
    await signedIn(a, 'live');
    await a.adapterFor('RefreshToken').upsert(REFRESH, { jti: REFRESH, grantId: 'live' } as never, 600);
    await signed;
    const ended = until('ended');
    await a.revokeGrant('live');
    await ended;
    expect(await b.adapterFor('RefreshToken').find(REFRESH)).toBeUndefined();
  });
});
