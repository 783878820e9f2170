/**
 * Where the core stores, as the host selected it (storage/selectDatabase.ts): the app's SQLite
 * file in the data folder always (traces, agents, runs, pins, app metadata, and — by default —
 * the tool calls), and the tool calls' checkpoints in PostgreSQL when a database URL was given,
 * so several cores on one database share History, replay and exactly-once.
 */
import type { FileDamagedWarning } from '../../shared/contract.js';
import type { Database } from '../storage/database.js';
import { join } from 'node:path';
import { POSTGRES_CHECKPOINT_MIGRATIONS } from '../checkpoints/postgresSchema.js';
import { postgresCheckpointStores } from '../checkpoints/postgresStore.js';
import type { CheckpointStores } from '../checkpoints/types.js';
import type { PgPool } from '../storage/postgres/pool.js';
import { openPostgres } from '../storage/postgres/pool.js';
import type { DatabaseSelection } from '../storage/selectDatabase.js';
import type { DisposableStore } from '../util/disposable.js';
import { openAppDatabaseWithReport } from './database.js';
import { POSTGRES_APPROVAL_MIGRATIONS } from './sharedApprovals.js';

export interface CoreStorage {
  db: Database;
  /** The SQLite file's path (the disk-full warning names it). */
  dbFile: string;
  /** What was found damaged and moved aside while opening the file. */
  damaged: FileDamagedWarning | undefined;
  /** The checkpoints elsewhere than `db` (PostgreSQL); undefined: in `db`, as the pipeline builds them. */
  checkpoints: CheckpointStores | undefined;
  /** Where the checkpoints are, as it may be shown (no credentials). */
  where: string;
  /** PostgreSQL when selected: the approvals are shared there (sharedApprovals.ts). */
  postgres?: { pool: PgPool; url: string };
}

/**
 * Opens the SQLite file, then PostgreSQL when selected (connects and migrates before anything
 * runs: an unreachable database, a refused write or a newer schema is a coded error here, and
 * nothing stored is touched). Both close with `lifecycle`, after every part that uses them.
 */
export async function openCoreStorage(
  dataDir: string,
  selection: DatabaseSelection | undefined,
  lifecycle: DisposableStore,
  beforeClose: () => void,
): Promise<CoreStorage> {
  const dbFile = join(dataDir, 'miniharness.db');
  const opened = openAppDatabaseWithReport(dbFile);
  const db = opened.db;
  lifecycle.defer('database', () => {
    beforeClose();
    db.close();
  });
  const local = { db, dbFile, damaged: opened.damaged };
  if (selection?.kind !== 'postgres') return { ...local, checkpoints: undefined, where: dbFile };
  let postgres;
  try {
    postgres = await openPostgres(selection.url, {
      // One pool for every component kept there; each component migrates its own tables.
      migrations: { checkpoints: POSTGRES_CHECKPOINT_MIGRATIONS, approvals: POSTGRES_APPROVAL_MIGRATIONS },
    });
  } catch (error) {
    db.close();
    throw error;
  }
  const { pool, where } = postgres;
  lifecycle.defer('PostgreSQL', () => postgres.close());
  const checkpoints = postgresCheckpointStores(pool, where);
  lifecycle.defer('PostgreSQL checkpoints', () => checkpoints.close());
  return { ...local, checkpoints, where, postgres: { pool, url: selection.url } };
}
