/**
 * A tiny schema migration mechanism. The database's `user_version` is the number of the last
 * migration applied; every store's migrations are listed, in order, in one list
 * (`APP_MIGRATIONS` in migrations.ts), so checkpoints and traces share one file and one
 * linear schema history. A store never renumbers or edits a shipped migration: it appends one.
 */
import type { Database } from 'better-sqlite3';
import { MigrationListError, SchemaTooNewError } from './errors.js';

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
      if (current !== migration.version - 1) throw new MigrationListError(`the file is at version ${current}, cannot apply ${migration.version}`);
      migration.up(db);
      // user_version is part of the file header, so setting it here commits or rolls back with the DDL.
      db.pragma(`user_version = ${migration.version}`);
      applied.push(migration.name);
    });
    apply.immediate();
  }
  return { from, to: Math.max(from, latest), applied };
}

function checkList(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new MigrationListError(`"${migration.name}" has version ${migration.version} at position ${index + 1}`);
    }
  });
}
