/**
 * Errors of the shared storage layer (opening, migrating, paging). Messages say what happened
 * and what to do; they never contain stored data.
 */

import { CodedError } from '../util/codedError.js';

export type StorageErrorCode =
  | 'schema_too_new'
  | 'schema_not_migrated'
  | 'migration_invalid'
  | 'invalid_cursor'
  | 'invalid_query'
  | 'database_unreachable'
  | 'database_refused';

/** SQLite's "database or disk is full" (better-sqlite3 names an error by its result code). */
export function isDiskFull(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_FULL';
}

abstract class StorageError extends CodedError<StorageErrorCode> {}

/** The file was migrated by a newer app version; an older one must not write to it. */
export class SchemaTooNewError extends StorageError {
  readonly code = 'schema_too_new';
  constructor(
    readonly fileVersion: number,
    readonly knownVersion: number,
  ) {
    super(
      `The database has schema version ${fileVersion}, but this version of the app only knows up to ${knownVersion}. ` +
        'It was written by a newer MiniHarness: update the app, or point it at another data folder.',
    );
  }
}

/** A programming error: a store was given a database its opener did not migrate for it. */
export class SchemaNotMigratedError extends StorageError {
  readonly code = 'schema_not_migrated';
  constructor(
    readonly store: string,
    readonly fileVersion: number,
    readonly neededVersion: number,
  ) {
    super(
      `The ${store} store needs the database at schema version ${neededVersion} or later, but it is at ${fileVersion}: open it with the app's migrations (app/database.ts).`,
    );
  }
}

/** A programming error in the migration list (gaps, duplicates). */
export class MigrationListError extends StorageError {
  readonly code = 'migration_invalid';
  constructor(detail: string) {
    super(
      `The list of database migrations is invalid: ${detail}. Migration versions must be 1, 2, 3, … with no gaps or duplicates.`,
    );
  }
}

export class InvalidCursorError extends StorageError {
  readonly code = 'invalid_cursor';
  constructor() {
    super('The page cursor is not valid (it is damaged or comes from another list). Start again from the first page.');
  }
}

export class InvalidQueryError extends StorageError {
  readonly code = 'invalid_query';
  constructor(detail: string) {
    super(`Invalid query: ${detail}`);
  }
}

/**
 * The PostgreSQL server could not be reached (refused, timed out, unknown host, wrong password).
 * `where` is the database URL with its password and user removed; `reason` a short code (the
 * driver's errno or SQLSTATE), as data.
 */
export class DatabaseUnreachableError extends StorageError {
  readonly code = 'database_unreachable';
  constructor(
    readonly where: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      `The database at ${where} could not be reached (${reason}). Nothing was written; what is already stored is kept. ` +
        'Check that the server runs and the address, user and password in the database URL are right, then try again.',
      options,
    );
  }

  override toJSON(): ReturnType<StorageError['toJSON']> & { where: string; reason: string } {
    return { ...super.toJSON(), where: this.where, reason: this.reason };
  }
}

/**
 * The PostgreSQL server refused a statement (read-only, permission, disk full, constraint…): the
 * statement's transaction rolled back, so what was stored before is intact. `sqlState` is the
 * server's code, as data.
 */
export class DatabaseRefusedError extends StorageError {
  readonly code = 'database_refused';
  constructor(
    readonly operation: string,
    readonly sqlState: string,
    options?: { cause?: unknown },
  ) {
    super(
      `The database refused to ${operation} (SQLSTATE ${sqlState}). Nothing of it was written and what was stored before is kept; ` +
        'check that the database user may write and the server has space, then try again.',
      options,
    );
  }

  override toJSON(): ReturnType<StorageError['toJSON']> & { operation: string; sqlState: string } {
    return { ...super.toJSON(), operation: this.operation, sqlState: this.sqlState };
  }
}

/**
 * Another MiniHarness on the same database changed what this one was about to overwrite, since
 * this one read it: nothing was written (optimistic concurrency — the last writer must not erase
 * the other's change without seeing it).
 */
export class ChangedElsewhereError extends StorageError {
  readonly code = 'database_refused';
  constructor(readonly what: string) {
    super(
      `The ${what} were changed by another MiniHarness on this database since this one read them, so nothing was written. ` +
        'Restart this one to read them again, then make the change again.',
    );
  }
}
