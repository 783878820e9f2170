/**
 * A tiny schema migration mechanism. The database's `user_version` is the number of the last
 * migration applied. The stores sharing one file share one linear schema history: each store
 * declares its own migrations where it lives (checkpoints/schema.ts, tracing/schema.ts,
 * storage/appMeta.ts), each numbered at its place in that history; the composition root collects
 * them (`collectMigrations`) and the database opener runs the list once. A store never runs
 * migrations itself: it checks that its own were applied (`requireMigrations`). A shipped
 * migration is never renumbered or edited: a store appends one with the next free number.
 */
import type { Database } from 'better-sqlite3';
import { MigrationListError, SchemaNotMigratedError, SchemaTooNewError } from './errors.js';

export interface Migration {
  /** 1-based position in the app's list; becomes `user_version` once applied. */
  version: number;
  /** Who owns it and what it does, for error messages and reviews ("checkpoints: create tables"). */
  name: string;
  /** Runs inside the migration's transaction; throw to roll it back. */
  up(db: Database): void;
}

export interface MigrationReport {
  from: number;
  to: number;
  applied: string[];
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Applies every migration newer than the file's `user_version`, each in its own
 * BEGIN IMMEDIATE transaction that also bumps `user_version`: a crash leaves the file at the
 * previous version, and two processes opening one file at once migrate it only once (the
 * second one re-reads the version after taking the write lock and skips).
 */
export function runMigrations(db: Database, migrations: readonly Migration[]): MigrationReport {
  checkList(migrations);
  const latest = migrations.length;
  const from = schemaVersion(db);
  if (from > latest) throw new SchemaTooNewError(from, latest);

  const applied: string[] = [];
  for (const migration of migrations) {
    if (migration.version <= from) continue;
    const apply = db.transaction(() => {
      const current = schemaVersion(db);
      if (current >= migration.version) return; // another process got there first
      if (current !== migration.version - 1)
        throw new MigrationListError(`the file is at version ${current}, cannot apply ${migration.version}`);
      migration.up(db);
      // user_version is part of the file header, so setting it here commits or rolls back with the DDL.
      db.pragma(`user_version = ${migration.version}`);
      applied.push(migration.name);
    });
    apply.immediate();
  }
  return { from, to: Math.max(from, latest), applied };
}

/**
 * The one ordered list of the stores sharing a file, from each store's own list. A duplicate or
 * missing number is left for `runMigrations` to refuse (MigrationListError), naming the migration.
 */
export function collectMigrations(...lists: ReadonlyArray<readonly Migration[]>): readonly Migration[] {
  return lists.flat().sort((a, b) => a.version - b.version);
}

/**
 * Throws unless the file's schema includes `own` (a store's migrations): a store is handed a
 * database its opener has migrated, and says so clearly when it was not instead of failing on a
 * missing table.
 */
export function requireMigrations(db: Database, store: string, own: readonly Migration[]): void {
  const needed = Math.max(0, ...own.map((migration) => migration.version));
  const version = schemaVersion(db);
  if (version < needed) throw new SchemaNotMigratedError(store, version, needed);
}

function checkList(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new MigrationListError(`"${migration.name}" has version ${migration.version} at position ${index + 1}`);
    }
  });
}
