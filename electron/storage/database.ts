/**
 * Opens the app's SQLite database (checkpoints and traces live in one file) with the settings
 * every store relies on, and brings its schema up to date with the migrations it is given — the
 * app's list is collected by its composition root (core/database.ts); storage knows no store.
 *
 * The stores are local: one machine, one user profile. WAL needs shared memory between the
 * processes using the file, so the file must not live on a network file system.
 *
 * The file is the user's alone (0600; SQLite gives `-wal` and `-shm` the main file's mode). A new
 * file is built complete under a temporary name and linked into place, so an existing file of
 * any size is always a database someone wrote: one that is not (0 bytes, not SQLite, corrupt)
 * is damaged — moved aside with its `-wal`/`-shm` and reported, never silently replaced. Damage
 * behind a valid header is found at open by `PRAGMA quick_check`, not at some later read.
 *
 * Writes: the stores group-commit through the connection's queue (groupCommit.ts), and the WAL
 * is checkpointed by a timer once writes pause, never inside a commit (walCheckpointer.ts).
 * `close()` commits what is still queued and stops the checkpointer before closing.
 */
import { closeSync, existsSync, linkSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import type { FileDamagedWarning } from '../../shared/contract/warnings.js';
import type { DamageProblem } from './damagedFile.js';
import { setAside } from './damagedFile.js';
import { groupCommitFor } from './groupCommit.js';
import { PRIVATE_FILE_MODE, ensurePrivateDir, makePrivate } from './privateFiles.js';
import { WalCheckpointer, workerCheckpoints } from './walCheckpointer.js';
import type { Migration, MigrationReport } from './migrate.js';
import { runMigrations } from './migrate.js';

export type { Database } from 'better-sqlite3';

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/** The WAL file's size once it starts over (it grows past this between checkpoints under load). */
export const WAL_SIZE_LIMIT_BYTES = 8 * 1024 * 1024;

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
  /** The ordered migrations of every store sharing the file, run once here (see migrate.ts). */
  migrations: readonly Migration[];
  /** Clock for a damaged file's `.corrupt-<timestamp>` name. */
  now?: () => number;
}

export interface OpenedDatabase {
  db: Database;
  migration: MigrationReport;
  /** The file was damaged: where it went (the database was started anew). */
  damaged?: FileDamagedWarning;
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * A connection that closes cleanly: what is queued for the next group commit is committed first
 * (a trace event or a claim in flight is not dropped), and its WAL checkpointer stops.
 */
class AppDatabase extends BetterSqlite3 {
  #checkpointer: WalCheckpointer | undefined;

  /**
   * Turns SQLite's in-commit auto-checkpoint off and checkpoints after the group commits instead,
   * on a connection of its own in a worker thread (opened with the same options as this one).
   */
  checkpointOffThePath(file: string, options: { timeout: number }): void {
    this.pragma('wal_autocheckpoint = 0');
    const worker = workerCheckpoints(file, options);
    const checkpointer = new WalCheckpointer(this, { runner: worker.runner, onStop: () => worker.close() });
    groupCommitFor(this).onCommit(() => checkpointer.noteWrite());
    this.#checkpointer = checkpointer;
  }

  get checkpointer(): WalCheckpointer | undefined {
    return this.#checkpointer;
  }

  override close(): this {
    if (this.open) {
      this.#checkpointer?.stop();
      groupCommitFor(this).flush();
    }
    return super.close();
  }
}
const COMPANIONS = ['-wal', '-shm'] as const;

/** The WAL checkpointer of a connection opened here on a file (none for ':memory:'). */
export function walCheckpointerOf(db: Database): WalCheckpointer | undefined {
  return db instanceof AppDatabase ? db.checkpointer : undefined;
}

/** Opens (creating it and its folder if needed) and migrates a database file, or ':memory:'. */
export function openDatabase(file: string, options: OpenDatabaseOptions): Database {
  return openDatabaseWithReport(file, options).db;
}

/** As `openDatabase`, and says which migrations ran (for logs) and whether the file was damaged. */
export function openDatabaseWithReport(file: string, options: OpenDatabaseOptions): OpenedDatabase {
  if (file === ':memory:') {
    const db = configure(new AppDatabase(file), options, true);
    return { db, migration: runMigrations(db, options.migrations) };
  }
  ensurePrivateDir(dirname(file));
  const problem = headerProblem(file);
  let damaged = problem ? setAside(file, 'history', problem, { now: options.now, companions: COMPANIONS }) : undefined;
  try {
    return { ...openFile(file, options), ...(damaged ? { damaged } : {}) };
  } catch (error) {
    // A valid header over damaged pages shows up here, at the first read.
    const code = (error as { code?: unknown }).code;
    if (damaged || (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT')) throw error;
    damaged = setAside(file, 'history', code === 'SQLITE_NOTADB' ? 'not_sqlite' : 'invalid_content', {
      now: options.now,
      companions: COMPANIONS,
    });
    return { ...openFile(file, options), ...(damaged ? { damaged } : {}) };
  }
}

function openFile(file: string, options: OpenDatabaseOptions): { db: Database; migration: MigrationReport } {
  createIfMissing(file);
  makePrivate(file);
  const connection = { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS };
  const db = new AppDatabase(file, connection);
  try {
    configure(db, options, false);
    refuseDamagedPages(db);
    db.checkpointOffThePath(file, connection);
    // -wal/-shm left behind with another mode by an older version: they would keep it.
    for (const suffix of COMPANIONS) makePrivate(`${file}${suffix}`);
    return { db, migration: runMigrations(db, options.migrations) };
  } catch (error) {
    db.close();
    throw error;
  }
}

function configure(db: Database, options: OpenDatabaseOptions, inMemory: boolean): Database {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  // WAL: readers (the GUI's history) never block the writer, and a commit is one append.
  if (!inMemory) db.pragma('journal_mode = WAL');
  // In WAL mode, NORMAL fsyncs only at checkpoints, not at each commit. A commit has reached
  // the OS when it returns, so killing the process (crash, SIGKILL) loses nothing. A power
  // loss or OS crash can lose the last commits since the previous checkpoint — the file stays
  // consistent, but a `started` claim could vanish and the call could then run again.
  // 'full' closes that gap with an fsync per commit (milliseconds on consumer disks).
  db.pragma(`synchronous = ${options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
  // When the WAL starts over after a checkpoint, its file is cut back to this size (else it keeps
  // the largest size it ever reached).
  if (!inMemory) db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  db.pragma('foreign_keys = ON');
  return db;
}

/**
 * A valid header over damaged pages: migrations read only the schema, so without this a damaged
 * table is found later, by whichever read reaches it first ("database disk image is malformed"),
 * and the app stops. `quick_check` reads every page once (not the index-to-table cross-checks of
 * `integrity_check`); its cost grows with the file — measured in bench/databaseQuickCheck.ts.
 * Thrown as SQLITE_CORRUPT, which the opener moves aside and reports like any damage.
 */
function refuseDamagedPages(db: Database): void {
  const verdict = db.pragma('quick_check(1)', { simple: true }) as unknown;
  if (verdict === 'ok') return;
  throw Object.assign(new Error('The database failed its quick check: some pages are damaged.'), {
    code: 'SQLITE_CORRUPT',
  });
}

/** Why an existing file cannot be a database (0 bytes, or no SQLite header); undefined if it may be. */
function headerProblem(file: string): DamageProblem | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error; // unreadable is not damaged: moving it could hide a permissions problem
  }
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, header, 0, header.length, 0);
    if (read === 0) return 'empty';
    return read === header.length && header.equals(SQLITE_HEADER) ? undefined : 'not_sqlite';
  } finally {
    closeSync(fd);
  }
}

/**
 * Creates the database file complete (header written, WAL mode, 0600) under a temporary name,
 * then links it into place: another process never sees a half-made file, and when two create
 * it at once, one wins and both open the winner's.
 */
function createIfMissing(file: string): void {
  if (existsSync(file)) return;
  const temp = `${file}.new-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    closeSync(openSync(temp, 'wx', PRIVATE_FILE_MODE));
    makePrivate(temp);
    const db = new BetterSqlite3(temp);
    try {
      db.pragma('journal_mode = WAL');
    } finally {
      db.close();
    }
    try {
      linkSync(temp, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return;
      // No hard links on this file system: a rename, unless someone created the file meanwhile.
      if (!existsSync(file)) renameSync(temp, file);
    }
  } finally {
    for (const path of [temp, `${temp}-wal`, `${temp}-shm`]) rmSync(path, { force: true });
  }
}
