/**
 * The shared database: pragmas, the user_version migrations each store declares where it lives,
 * and the one opener that runs them.
 */
import { PIN_MIGRATIONS } from '../../electron/security/sqlitePinStore.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_MIGRATIONS, openAppDatabase, openAppDatabaseWithReport } from '../../electron/core/database.js';
import { CHECKPOINT_MIGRATIONS } from '../../electron/checkpoints/schema.js';
import { SqliteCheckpointStore } from '../../electron/checkpoints/sqliteStore.js';
import { RUN_MIGRATIONS } from '../../electron/runs/schema.js';
import { APP_META_MIGRATIONS } from '../../electron/storage/appMeta.js';
import { openDatabase } from '../../electron/storage/database.js';
import { MigrationListError, SchemaNotMigratedError, SchemaTooNewError } from '../../electron/storage/errors.js';
import type { Migration } from '../../electron/storage/migrate.js';
import { collectMigrations, runMigrations, schemaVersion } from '../../electron/storage/migrate.js';
import { TRACE_MIGRATIONS } from '../../electron/tracing/schema.js';
import { Tracer } from '../../electron/tracing/tracer.js';
import { tempDir } from './tempDir.js';

const tables = (db: ReturnType<typeof openAppDatabase>) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );

describe('openDatabase', () => {
  it('opens a file in WAL mode with NORMAL sync, a busy timeout and foreign keys, holding both stores', () => {
    const scratch = tempDir();
    try {
      const db = openAppDatabase(join(scratch.dir, 'a', 'b', 'harness.db'));
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5_000);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(schemaVersion(db)).toBe(APP_MIGRATIONS.length);
      expect(tables(db)).toEqual(expect.arrayContaining(['checkpoints', 'traces', 'trace_events']));
      db.close();

      const full = openAppDatabase(join(scratch.dir, 'a', 'b', 'harness.db'), {
        durability: 'full',
        busyTimeoutMs: 250,
      });
      expect(full.pragma('synchronous', { simple: true })).toBe(2);
      expect(full.pragma('busy_timeout', { simple: true })).toBe(250);
      full.close();
    } finally {
      scratch.cleanup();
    }
  });

  it('migrates once: a second open applies nothing', () => {
    const scratch = tempDir();
    try {
      const file = join(scratch.dir, 'harness.db');
      const first = openAppDatabaseWithReport(file);
      expect(first.migration).toEqual({
        from: 0,
        to: APP_MIGRATIONS.length,
        applied: APP_MIGRATIONS.map((m) => m.name),
      });
      first.db.close();
      const second = openAppDatabaseWithReport(file);
      expect(second.migration).toEqual({ from: APP_MIGRATIONS.length, to: APP_MIGRATIONS.length, applied: [] });
      second.db.close();
    } finally {
      scratch.cleanup();
    }
  });

  it('refuses a file written by a newer app, and closes it', () => {
    const scratch = tempDir();
    try {
      const file = join(scratch.dir, 'harness.db');
      const db = openAppDatabase(file);
      db.pragma('user_version = 99');
      db.close();
      const error = (() => {
        try {
          openAppDatabase(file);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(SchemaTooNewError);
      expect((error as Error).message).toMatch(/update the app/);
    } finally {
      scratch.cleanup();
    }
  });
});

describe('runMigrations', () => {
  const create = (version: number, table: string): Migration => ({
    version,
    name: `create ${table}`,
    up: (db) => db.exec(`CREATE TABLE ${table} (x INTEGER)`),
  });

  it('applies only the new migrations, in order, bumping user_version', () => {
    const db = openDatabase(':memory:', { migrations: [] });
    expect(runMigrations(db, [create(1, 'one')]).applied).toEqual(['create one']);
    expect(runMigrations(db, [create(1, 'one'), create(2, 'two'), create(3, 'three')]).applied).toEqual([
      'create two',
      'create three',
    ]);
    expect(schemaVersion(db)).toBe(3);
    expect(tables(db)).toEqual(['one', 'three', 'two']);
    db.close();
  });

  it('rolls a failing migration back whole and keeps the previous version', () => {
    const db = openDatabase(':memory:', { migrations: [] });
    const broken: Migration = {
      version: 2,
      name: 'broken',
      up: (d) => {
        d.exec('CREATE TABLE half (x INTEGER)');
        throw new Error('boom');
      },
    };
    expect(() => runMigrations(db, [create(1, 'one'), broken])).toThrow('boom');
    expect(schemaVersion(db)).toBe(1);
    expect(tables(db)).toEqual(['one']);
    db.close();
  });

  it('rejects a list with gaps or duplicates before touching the file', () => {
    const db = openDatabase(':memory:', { migrations: [] });
    expect(() => runMigrations(db, [create(1, 'one'), create(3, 'three')])).toThrow(MigrationListError);
    expect(() => runMigrations(db, [create(1, 'one'), create(1, 'again')])).toThrow(MigrationListError);
    expect(schemaVersion(db)).toBe(0);
    expect(tables(db)).toEqual([]);
    db.close();
  });
});

describe('the app migrations: declared by each store, collected and run in one place', () => {
  it('keep the shipped numbers and order, so existing files migrate as before', () => {
    // Append only: a shipped migration keeps its number, or an existing file would skip or repeat one.
    expect(APP_MIGRATIONS.map((m) => [m.version, m.name.split(':')[0]])).toEqual([
      [1, 'checkpoints'],
      [2, 'tracing'],
      [3, 'storage'],
      [4, 'tracing'],
      [5, 'checkpoints'],
      [6, 'tracing'],
      [7, 'tracing'],
      [8, 'tracing'],
      [9, 'runs'],
      [10, 'checkpoints'],
      [11, 'checkpoints'],
      [12, 'security'],
      [13, 'tracing'],
    ]);
    expect(APP_MIGRATIONS).toEqual([
      CHECKPOINT_MIGRATIONS[0],
      TRACE_MIGRATIONS[0],
      ...APP_META_MIGRATIONS,
      TRACE_MIGRATIONS[1],
      CHECKPOINT_MIGRATIONS[1],
      TRACE_MIGRATIONS[2],
      TRACE_MIGRATIONS[3],
      TRACE_MIGRATIONS[4],
      ...RUN_MIGRATIONS,
      CHECKPOINT_MIGRATIONS[2],
      CHECKPOINT_MIGRATIONS[3],
      ...PIN_MIGRATIONS,
      TRACE_MIGRATIONS[5],
    ]);
  });

  it('a store never migrates: it refuses a database its opener did not migrate, and the file is untouched', () => {
    const db = openDatabase(':memory:', { migrations: [] });
    try {
      expect(() => new SqliteCheckpointStore(db)).toThrow(SchemaNotMigratedError);
      expect(() => new Tracer(db)).toThrow(
        /traces store needs the database at schema version 13 or later, but it is at 0/,
      );
      expect(schemaVersion(db)).toBe(0);
      expect(tables(db)).toEqual([]);

      // Migrated only up to the checkpoints' last migration: the tracer still needs its sixth (events in the trace's row).
      runMigrations(db, APP_MIGRATIONS.slice(0, 11));
      expect(() => new SqliteCheckpointStore(db)).not.toThrow();
      expect(() => new Tracer(db)).toThrow(SchemaNotMigratedError);
      expect(schemaVersion(db)).toBe(11);
      runMigrations(db, APP_MIGRATIONS);
      expect(() => new Tracer(db)).not.toThrow();
    } finally {
      db.close();
    }
  });

  it("collecting orders the stores' lists by number, and two stores taking one number fail before touching the file", () => {
    const create = (version: number, table: string): Migration => ({
      version,
      name: `create ${table}`,
      up: (db) => db.exec(`CREATE TABLE ${table} (x INTEGER)`),
    });
    expect(
      collectMigrations([create(2, 'b'), create(4, 'd')], [create(1, 'a')], [create(3, 'c')]).map((m) => m.version),
    ).toEqual([1, 2, 3, 4]);

    const db = openDatabase(':memory:', { migrations: [] });
    try {
      expect(() =>
        runMigrations(db, collectMigrations([create(1, 'a'), create(2, 'b')], [create(2, 'clash')])),
      ).toThrow(MigrationListError);
      expect(schemaVersion(db)).toBe(0);
      expect(tables(db)).toEqual([]);
    } finally {
      db.close();
    }
  });
});
