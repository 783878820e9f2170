/**
 * The app metadata (AppMeta), the same on both stores: a value is created once, the first
 * writer's wins, and every reader — another connection, a later open, many at once — reads that
 * one value. On PostgreSQL, two pools on one database are two instances: they share the GUI's
 * session id, which keys the calls of the GUI and the CLI.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { persistentGuiCaller } from '../../electron/core/callService.js';
import { openAppDatabase } from '../../electron/core/database.js';
import type { AppMeta } from '../../electron/storage/appMeta.js';
import { sqliteAppMeta } from '../../electron/storage/appMeta.js';
import { POSTGRES_APP_META_MIGRATIONS, postgresAppMeta } from '../../electron/storage/postgres/appMeta.js';
import type { PostgresDatabase } from '../../electron/storage/postgres/pool.js';
import { openPostgres } from '../../electron/storage/postgres/pool.js';
import { scratchDir } from '../helpers/fixtures.js';
import type { TestDatabase } from './postgres.js';
import { createTestDatabase, describePostgres } from './postgres.js';

/** Two handles on one store (two connections, or two instances' pools). */
type Subject = { one: AppMeta; other: AppMeta };

function describeAppMeta(name: string, open: () => Promise<Subject>): void {
  describe(`${name}: app metadata`, () => {
    let one: AppMeta;
    let other: AppMeta;
    beforeAll(async () => ({ one, other } = await open()));

    it('creates a value once; the other handle reads the first one', async () => {
      let created = 0;
      const make = () => `value-${++created}`;
      expect(await one.persistentValue('k', make)).toBe('value-1');
      expect(await other.persistentValue('k', make)).toBe('value-1');
      expect(await other.persistentValue('other', make)).toBe('value-2');
      expect(created).toBe(2);
    });

    it('many first readers at once on both handles agree on one value', async () => {
      let created = 0;
      const values = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? one : other).persistentValue('race', () => `v-${++created}`)),
      );
      expect(new Set(values).size).toBe(1);
    });

    it('refuses an empty value and stores nothing', async () => {
      await expect(one.persistentValue('empty', () => '')).rejects.toThrow(TypeError);
      expect(await other.persistentValue('empty', () => 'later')).toBe('later');
    });

    it('gives the GUI (and CLI) caller one session id on both handles', async () => {
      const [a, b] = await Promise.all([persistentGuiCaller(one), persistentGuiCaller(other)]);
      expect(a.sessionId).toMatch(/^gui-/);
      expect(b).toEqual(a);
    });
  });
}

const scratch = scratchDir('mh-appmeta-');
afterAll(() => scratch.cleanup());
describeAppMeta('SQLite', async () => {
  const file = join(scratch.dir, 'meta.db');
  const a = openAppDatabase(file);
  const b = openAppDatabase(file);
  afterAll(() => {
    a.close();
    b.close();
  });
  return { one: sqliteAppMeta(a), other: sqliteAppMeta(b) };
});

describePostgres('PostgreSQL app metadata', () => {
  let database: TestDatabase;
  const pools: PostgresDatabase[] = [];
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    await database?.drop();
  });
  describeAppMeta('PostgreSQL', async () => {
    database = await createTestDatabase('appmeta');
    for (let i = 0; i < 2; i++)
      pools.push(await openPostgres(database.url, { migrations: { app_meta: POSTGRES_APP_META_MIGRATIONS } }));
    const [a, b] = pools as [PostgresDatabase, PostgresDatabase];
    return { one: postgresAppMeta(a.pool, a.where), other: postgresAppMeta(b.pool, b.where) };
  });
});
