/**
 * People's roles, the bootstrap token and the API tokens (electron/serve/peopleStore.ts): the same
 * cases on the file (one data folder) and on PostgreSQL (postgresPeopleStore.ts), then what only
 * PostgreSQL promises — one first admin per database, and every instance seeing a role change or
 * a revoked token after another instance's notice (waited for on the store's change event).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { People } from '../../electron/serve/people.js';
import type { PeopleStorage, StoredApiToken } from '../../electron/serve/peopleStore.js';
import { FilePeopleStore } from '../../electron/serve/peopleStore.js';
import { PostgresPeopleStore } from '../../electron/serve/postgresPeopleStore.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { TestDatabase } from '../storage/postgres.js';
import { createTestDatabase, describePostgres } from '../storage/postgres.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const ann = { issuer: 'https://idp.example', subject: 'ann', name: 'Ann', email: 'ann@team.example' };
const ben = { issuer: 'https://idp.example', subject: 'ben', name: 'Ben' };
const token = (name: string, secret: string): StoredApiToken => ({
  id: `id-${name}`,
  name,
  role: 'viewer',
  sha256: sha256(secret),
  createdBy: 'Ann',
  createdAt: 1,
});

/** The cases every PeopleStorage passes; `open` gives a fresh, empty store. */
function conformance(open: () => Promise<PeopleStorage>): void {
  let store: PeopleStorage;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(() => store.close());

  it('a bootstrap token is used up by the first sign-in with it, which makes an admin', async () => {
    await store.setBootstrap(sha256('first'));
    await store.setBootstrap(sha256('second')); // a restart before use: only the new one works
    expect(await store.redeemBootstrap(sha256('first'), ann)).toBe(false);
    expect(await store.redeemBootstrap(sha256('second'), ann)).toBe(true);
    expect(await store.redeemBootstrap(sha256('second'), ben)).toBe(false);
    expect(store.people().find((p) => p.subject === 'ann')?.role).toBe('admin');
  });

  it('a sign-in is recorded and keeps the role; roles change; a person is removed', async () => {
    await store.seen({ ...ann, name: 'Ann B.', lastSignInAt: 5 });
    expect(store.people().find((p) => p.subject === 'ann')).toMatchObject({ role: 'admin', name: 'Ann B.' });
    await store.seen({ ...ben, lastSignInAt: 6 });
    expect(store.people().find((p) => p.subject === 'ben')?.role).toBeUndefined();
    expect(await store.setRole(ben, 'approver')).toMatchObject({ subject: 'ben', role: 'approver' });
    expect(await store.setRole({ issuer: 'x', subject: 'nobody' }, 'viewer')).toBeUndefined();
    expect(await store.remove(ben)).toBe(true);
    expect(await store.remove(ben)).toBe(false);
    expect(store.people().map((p) => p.subject)).toEqual(['ann']);
  });

  it('tokens: a live name is unique (any case), a revoked one frees it; revocation keeps its first time', async () => {
    expect(await store.addToken(token('deploy', 's1'))).toBe(true);
    expect(await store.addToken({ ...token('Deploy', 's2'), id: 'other' })).toBe(false);
    expect(await store.revokeToken('id-deploy', 10)).toMatchObject({ revokedAt: 10 });
    expect(await store.revokeToken('id-deploy', 20)).toMatchObject({ revokedAt: 10 });
    expect(await store.revokeToken('no-such', 20)).toBeUndefined();
    expect(await store.addToken({ ...token('Deploy', 's2'), id: 'other' })).toBe(true);
    await store.touchToken('other', 30);
    expect(store.tokens().find((t) => t.id === 'other')).toMatchObject({ lastUsedAt: 30, sha256: sha256('s2') });
    // Only the hash is kept.
    expect(JSON.stringify(store.tokens())).not.toContain('s2"');
  });
}

describe('people storage: the file', () => {
  const scratch = scratchDir('mh-people-');
  afterAll(() => scratch.cleanup());
  let n = 0;
  conformance(() => {
    const dir = join(scratch.dir, String(n++));
    mkdirSync(dir);
    return Promise.resolve(new FilePeopleStore(dir));
  });

  it('reads the former people.json (bootstrap admins only) as people with the admin role', () => {
    const dir = scratch.dir;
    writeFileSync(join(dir, 'people.json'), JSON.stringify({ admins: [{ issuer: 'i', subject: 'old' }] }));
    const store = new FilePeopleStore(dir);
    expect(store.people()).toEqual([{ issuer: 'i', subject: 'old', role: 'admin' }]);
  });

  it('keeps the file private and with no token value', async () => {
    const dir = scratch.dir;
    const store = new FilePeopleStore(dir);
    await store.addToken(token('ci', 'the-secret-value'));
    expect(readFileSync(join(dir, 'people.json'), 'utf8')).not.toContain('the-secret-value');
    expect(statSync(join(dir, 'people.json')).mode & 0o777).toBe(0o600);
  });
});

describePostgres('people storage: PostgreSQL', () => {
  let database: TestDatabase;
  const opened: PostgresPeopleStore[] = [];
  const open = async (): Promise<PostgresPeopleStore> => {
    const store = await PostgresPeopleStore.open(database.url, () => undefined);
    opened.push(store);
    return store;
  };
  beforeAll(async () => {
    database = await createTestDatabase('people');
  });
  afterAll(async () => {
    for (const store of opened) await store.close().catch(() => undefined);
    await database?.drop();
  });

  describe('the shared cases', () => {
    conformance(open);
  });

  /** Resolves at `store`'s next change read from another instance. */
  const nextChange = (store: PeopleStorage): Promise<void> =>
    new Promise((resolve) => {
      const off = store.onChange(() => {
        off();
        resolve();
      });
    });

  it('one first admin per database: of two instances redeeming the one token at once, one wins', async () => {
    const [a, b] = [await open(), await open()];
    await a.setBootstrap(sha256('race'));
    const won = await Promise.all([
      a.redeemBootstrap(sha256('race'), { issuer: 'i', subject: 'from-a' }),
      b.redeemBootstrap(sha256('race'), { issuer: 'i', subject: 'from-b' }),
    ]);
    expect(won.filter(Boolean)).toHaveLength(1);
    // The token printed by A was replaced by B's start: only B's works.
    await a.setBootstrap(sha256('from-a-start'));
    await b.setBootstrap(sha256('from-b-start'));
    expect(await a.redeemBootstrap(sha256('from-a-start'), { issuer: 'i', subject: 'x' })).toBe(false);
    expect(await b.redeemBootstrap(sha256('from-b-start'), { issuer: 'i', subject: 'y' })).toBe(true);
  });

  it('two admins taking the admin role from each other on two instances at once: one is refused, an admin stays', async () => {
    // A database of its own: the other cases leave admins behind.
    const own = await createTestDatabase('people_admins');
    const stores: PostgresPeopleStore[] = [];
    try {
      for (let i = 0; i < 2; i++) stores.push(await PostgresPeopleStore.open(own.url, () => undefined));
      const [a, b] = stores as [PostgresPeopleStore, PostgresPeopleStore];
      const onA = new People(a, {});
      const onB = new People(b, {});
      for (const person of [ann, ben]) {
        await onA.seen(person);
        await a.setRole(person, 'admin');
      }
      // B reads the database again (as at a notice): both are admins there too.
      const seen = nextChange(b);
      await a.setRole(ann, 'admin');
      await seen;
      expect([onB.roleOf(ann), onB.roleOf(ben)]).toEqual(['admin', 'admin']);

      const results = await Promise.allSettled([onA.setRole(ann, ben, 'viewer'), onB.setRole(ben, ann, 'viewer')]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const refused = results.find((r) => r.status === 'rejected');
      expect(refused?.reason).toMatchObject({ code: 'last_admin' });
      const db = await openPostgres(own.url);
      try {
        expect((await db.pool.query(`SELECT subject FROM serve_people WHERE role = 'admin'`)).rows).toHaveLength(1);
      } finally {
        await db.close();
      }
    } finally {
      for (const store of stores) await store.close();
      await own.drop();
    }
  });

  it('a role given on A decides on B, and a token revoked on A is refused by B', async () => {
    const [a, b] = [await open(), await open()];
    const onA = new People(a, {});
    const onB = new People(b, {});
    const dan = { issuer: 'https://idp.example', subject: 'dan', name: 'Dan' };
    let changed = nextChange(b);
    await onA.seen(dan);
    await changed;
    expect(onB.roleOf(dan)).toBeUndefined();
    changed = nextChange(b);
    await a.setRole(dan, 'approver');
    await changed;
    expect(onB.roleOf(dan)).toBe('approver');

    changed = nextChange(b);
    const { secret, token: made } = await onA.createToken(dan, 'nightly', 'viewer');
    await changed;
    expect(onB.apiCaller(secret)).toMatchObject({ name: 'nightly', role: 'viewer' });
    changed = nextChange(b);
    await onA.revokeToken(made.id as string);
    await changed;
    expect(onB.apiCaller(secret)).toBeUndefined();
    expect(onB.tokenLive(made.id as string)).toBe(false);
  });
});
