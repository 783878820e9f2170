/**
 * Small durable facts about one data folder, kept in the shared database beside the records they
 * key: today the GUI's caller identity, which keys its checkpoints across restarts. Living in the
 * same file as the checkpoints, an identity and the records it keys share one fate — a database
 * moved aside takes both, and a fresh one starts a fresh identity with no records to collide with.
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from './migrate.js';

const APP_META_V1: Omit<Migration, 'version'> = {
  name: 'storage: create the app_meta key-value table',
  up(db) {
    db.exec(`
      CREATE TABLE app_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
    `);
  },
};

/** The app_meta table's migrations, at their place in the database file's one history (see storage/migrate.ts): a new one takes the next free number. */
export const APP_META_MIGRATIONS: readonly Migration[] = [{ version: 3, ...APP_META_V1 }];

/**
 * The value stored under `key`, created by `create()` the first time it is asked for. Atomic
 * across processes sharing the file: the first writer's value wins and every process (and every
 * later start) reads that same value.
 */
export function persistentValue(db: Database, key: string, create: () => string): string {
  const insert = db.prepare(
    'INSERT INTO app_meta (key, value, created_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING',
  );
  const select = db.prepare<[string], { value: string }>('SELECT value FROM app_meta WHERE key = ?');
  const read = db.transaction(() => {
    const existing = select.get(key);
    if (existing) return existing.value;
    const value = create();
    if (typeof value !== 'string' || value === '')
      throw new TypeError(`persistentValue: "${key}" must be created as a non-empty string.`);
    insert.run(key, value, Date.now());
    return (select.get(key) as { value: string }).value;
  });
  return read.immediate();
}

/**
 * Values created once and kept for the storage's life (app_meta): the GUI's session id, … In the
 * app's SQLite file by default; in PostgreSQL when a database is selected (postgres/appMeta.ts),
 * so every instance on that database reads the same values.
 */
export interface AppMeta {
  /** The value stored under `key`, created (by `create`) and stored at its first use; the first writer's value wins. */
  persistentValue(key: string, create: () => string): Promise<string>;
}

/** The app metadata in the app's SQLite file. */
export function sqliteAppMeta(db: Database): AppMeta {
  return { persistentValue: async (key, create) => persistentValue(db, key, create) };
}
