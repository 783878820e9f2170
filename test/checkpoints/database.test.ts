/** The shared database helper: pragmas, and the user_version migrations both stores register in. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, openDatabaseWithReport } from '../../electron/storage/database.js';
import { MigrationListError, SchemaTooNewError } from '../../electron/storage/errors.js';
import type { Migration } from '../../electron/storage/migrate.js';
import { runMigrations, schemaVersion } from '../../electron/storage/migrate.js';
import { APP_MIGRATIONS } from '../../electron/storage/migrations.js';
import { tempDir } from './tempDir.js';

const tables = (db: ReturnType<typeof openDatabase>) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);

describe('openDatabase', () => {
  it('opens a file in WAL mode with NORMAL sync, a busy timeout and foreign keys, holding both stores', () => {
    const scratch = tempDir();
    try {
      const db = openDatabase(join(scratch.dir, 'a', 'b', 'harness.db'));
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5_000);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(schemaVersion(db)).toBe(APP_MIGRATIONS.length);
      expect(tables(db)).toEqual(expect.arrayContaining(['checkpoints', 'traces', 'trace_events']));
      db.close();

      const full = openDatabase(join(scratch.dir, 'a', 'b', 'harness.db'), { durability: 'full', busyTimeoutMs: 250 });
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
      const first = openDatabaseWithReport(file);
      expect(first.migration).toEqual({ from: 0, to: APP_MIGRATIONS.length, applied: APP_MIGRATIONS.map((m) => m.name) });
      first.db.close();
      const second = openDatabaseWithReport(file);
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
      const db = openDatabase(file);
      db.pragma('user_version = 99');
      db.close();
      const error = (() => {
        try {
          openDatabase(file);
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
  const create = (version: number, table: string): Migration => ({ version, name: `create ${table}`, up: (db) => db.exec(`CREATE TABLE ${table} (x INTEGER)`) });

  it('applies only the new migrations, in order, bumping user_version', () => {
    const db = openDatabase(':memory:', { migrations: [] });
    expect(runMigrations(db, [create(1, 'one')]).applied).toEqual(['create one']);
    expect(runMigrations(db, [create(1, 'one'), create(2, 'two'), create(3, 'three')]).applied).toEqual(['create two', 'create three']);
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
