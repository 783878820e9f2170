/**
 * The app's database: which stores share the one file, and its opener. Each store declares its
 * migrations where it lives; this is the one place that puts them in order, and `openAppDatabase`
 * — called once by the composition root — is the one place that runs them. The stores only check
 * that theirs were applied.
 */
import { CHECKPOINT_MIGRATIONS } from '../checkpoints/schema.js';
import { RUN_MIGRATIONS } from '../runs/schema.js';
import { PIN_MIGRATIONS } from '../security/sqlitePinStore.js';
import { APP_META_MIGRATIONS } from '../storage/appMeta.js';
import type { Database, OpenDatabaseOptions, OpenedDatabase } from '../storage/database.js';
import { openDatabase, openDatabaseWithReport } from '../storage/database.js';
import { collectMigrations } from '../storage/migrate.js';
import { TRACE_MIGRATIONS } from '../tracing/schema.js';

/** Every store's migrations in the one order they are applied to the shared file. */
export const APP_MIGRATIONS = collectMigrations(
  CHECKPOINT_MIGRATIONS,
  TRACE_MIGRATIONS,
  APP_META_MIGRATIONS,
  RUN_MIGRATIONS,
  PIN_MIGRATIONS,
);

export type AppDatabaseOptions = Omit<OpenDatabaseOptions, 'migrations'>;

/** Opens (creating it if needed) the app's database file, or ':memory:', and migrates it once. */
export function openAppDatabase(file: string, options: AppDatabaseOptions = {}): Database {
  return openDatabase(file, { ...options, migrations: APP_MIGRATIONS });
}

/** As `openAppDatabase`, and says which migrations ran and whether the file was damaged. */
export function openAppDatabaseWithReport(file: string, options: AppDatabaseOptions = {}): OpenedDatabase {
  return openDatabaseWithReport(file, { ...options, migrations: APP_MIGRATIONS });
}
