/**
 * Opens the app's SQLite database (checkpoints and traces live in one file) with the settings
 * every store relies on, and brings its schema up to date.
 *
 * The stores are local: one machine, one user profile. WAL needs shared memory between the
 * processes using the file, so the file must not live on a network file system.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import type { Migration, MigrationReport } from './migrate.js';
import { runMigrations } from './migrate.js';
import { APP_MIGRATIONS } from './migrations.js';

export type { Database } from 'better-sqlite3';

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

export interface OpenDatabaseOptions {
  /**
   * How long a writer waits for another process's write lock before failing with SQLITE_BUSY.
   * Writes are short single-statement or single-claim transactions, so 5 s is generous.
   */
  busyTimeoutMs?: number;
  /**
   * 'normal' (default) survives a crash of the process; 'full' also survives a power loss or
   * an OS crash, at the price of an fsync on every commit. See the comment in `openDatabase`.
   */
  durability?: 'normal' | 'full';
  /** Defaults to every store's migrations (APP_MIGRATIONS). */
  migrations?: readonly Migration[];
}

export interface OpenedDatabase {
  db: Database;
  migration: MigrationReport;
}

/** Opens (creating it and its folder if needed) and migrates a database file, or ':memory:'. */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database {
  return openDatabaseWithReport(file, options).db;
}

/** As `openDatabase`, and says which migrations ran (for logs). */
export function openDatabaseWithReport(file: string, options: OpenDatabaseOptions = {}): OpenedDatabase {
  const inMemory = file === ':memory:';
  if (!inMemory) mkdirSync(dirname(file), { recursive: true });
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const db = new BetterSqlite3(file, { timeout: busyTimeoutMs });
  try {
    db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    // WAL: readers (the GUI's history) never block the writer, and a commit is one append.
    if (!inMemory) db.pragma('journal_mode = WAL');
    // In WAL mode, NORMAL fsyncs only at checkpoints, not at each commit. A commit has reached
    // the OS when it returns, so killing the process (crash, SIGKILL) loses nothing. A power
    // loss or OS crash can lose the last commits since the previous checkpoint — the file stays
    // consistent, but a `started` claim could vanish and the call could then run again.
    // 'full' closes that gap with an fsync per commit (milliseconds on consumer disks).
    db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma('foreign_keys = ON');
    const migration = runMigrations(db, options.migrations ?? APP_MIGRATIONS);
    return { db, migration };
  } catch (error) {
    db.close();
    throw error;
  }
}
