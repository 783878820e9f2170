/**
 * The app metadata (storage/appMeta.ts) in PostgreSQL: one table every instance on the database
 * shares, so values created once — the GUI's and the CLI's session id, which keys their calls —
 * are the same on every instance, and the same callId sent to two of them is one call.
 */
import type { AppMeta } from '../appMeta.js';
import type { PostgresMigration } from './migrate.js';
import type { PgPool } from './pool.js';
import { toStorageError } from './pool.js';

export const POSTGRES_APP_META_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'app metadata: values created once and shared by every instance on the database',
    sql: `
      CREATE TABLE app_meta (
        key text PRIMARY KEY,
        value text NOT NULL CHECK (value <> ''),
        created_at bigint NOT NULL
      );
    `,
  },
];

/** The app metadata in PostgreSQL (the pool has POSTGRES_APP_META_MIGRATIONS applied). */
export function postgresAppMeta(pool: PgPool, where: string): AppMeta {
  return {
    async persistentValue(key, create) {
      try {
        const found = await pool.query<{ value: string }>('SELECT value FROM app_meta WHERE key = $1', [key]);
        if (found.rows[0]) return found.rows[0].value;
        const value = create();
        if (typeof value !== 'string' || value === '')
          throw new TypeError(`persistentValue: "${key}" must be created as a non-empty string.`);
        // A concurrent first writer wins: ON CONFLICT waits for its commit, so the SELECT after sees its value.
        await pool.query(
          'INSERT INTO app_meta (key, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING',
          [key, value, Date.now()],
        );
        const stored = await pool.query<{ value: string }>('SELECT value FROM app_meta WHERE key = $1', [key]);
        return (stored.rows[0] as { value: string }).value;
      } catch (error) {
        throw error instanceof TypeError ? error : toStorageError(error, where, 'read or create the app metadata');
      }
    },
  };
}
