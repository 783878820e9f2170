/**
 * Where the core stores, as the host selected it (storage/selectDatabase.ts): the app's SQLite
 * file in the data folder always (traces, runs, pins, app metadata, and — by default — the tool
 * calls), and the tool calls' checkpoints, the traces and the app metadata in PostgreSQL when a
 * database URL was given, so several cores on one database share History, replay, exactly-once
 * (the GUI's and CLI's session id is one) and Traces, and the permission rules (a save over
 * another instance's newer one is refused, not lost). The agents' table migrates here too; their
 * store is opened with the approvals (core.ts, gateway/postgresAgentStore.ts).
 */
import type { FileDamagedWarning } from '../../shared/contract.js';
import type { Database } from '../storage/database.js';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { POSTGRES_CHECKPOINT_MIGRATIONS } from '../checkpoints/postgresSchema.js';
import { postgresCheckpointStores } from '../checkpoints/postgresStore.js';
import type { CheckpointStores } from '../checkpoints/types.js';
import type { PgPool } from '../storage/postgres/pool.js';
import { openPostgres } from '../storage/postgres/pool.js';
import { POSTGRES_TRACE_MIGRATIONS, PostgresTraceStore } from '../tracing/postgresTraceStore.js';
import { POSTGRES_RULE_MIGRATIONS, PostgresPermissionRuleStore } from '../security/postgresRuleStore.js';
import { POSTGRES_PIN_MIGRATIONS, PostgresPinStore } from '../security/postgresPinStore.js';
import { POSTGRES_RUN_MIGRATIONS, PostgresRunStore } from '../runs/postgresRunStore.js';
import { POSTGRES_OAUTH_MIGRATIONS, PostgresOAuthStore } from '../gateway/oauth/postgresOAuthStore.js';
import type { DatabaseSelection } from '../storage/selectDatabase.js';
import type { DisposableStore } from '../util/disposable.js';
import type { AppMeta } from '../storage/appMeta.js';
import { sqliteAppMeta } from '../storage/appMeta.js';
import { POSTGRES_APP_META_MIGRATIONS, postgresAppMeta } from '../storage/postgres/appMeta.js';
import { POSTGRES_AGENT_MIGRATIONS } from '../gateway/postgresAgentStore.js';
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
  /** The traces in PostgreSQL; undefined: in `db`. */
  traces: PostgresTraceStore | undefined;
  /** The permission rules in PostgreSQL (one revision-checked row); undefined: permissions.json in the data folder. */
  rules: PostgresPermissionRuleStore | undefined;
  /** The tool pins in PostgreSQL; undefined: in `db`. */
  pins: PostgresPinStore | undefined;
  /** Values created once (the GUI's session id): in `db`, or in PostgreSQL — shared by every instance there. */
  appMeta: AppMeta;
  /** The agent runs and model configurations in PostgreSQL; absent: in `db`. */
  runs?: PostgresRunStore;
  /** The gateway's OAuth clients, grants and tokens in PostgreSQL; absent: gateway-oauth.json. */
  oauth?: PostgresOAuthStore;
  /** Where the checkpoints are, as it may be shown (no credentials). */
  where: string;
  /** PostgreSQL when selected: the approvals are shared there (sharedApprovals.ts). */
  postgres?: {
    pool: PgPool;
    url: string;
    /** This core's name in the notices it publishes (core/sharedLists.ts). */
    origin: string;
  };
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
  const local = { db, dbFile, damaged: opened.damaged, appMeta: sqliteAppMeta(db) };
  if (selection?.kind !== 'postgres')
    return { ...local, checkpoints: undefined, traces: undefined, rules: undefined, pins: undefined, where: dbFile };
  let postgres;
  try {
    postgres = await openPostgres(selection.url, {
      // One pool for every component kept there; each component migrates its own tables.
      migrations: {
        checkpoints: POSTGRES_CHECKPOINT_MIGRATIONS,
        traces: POSTGRES_TRACE_MIGRATIONS,
        permission_rules: POSTGRES_RULE_MIGRATIONS,
        tool_pins: POSTGRES_PIN_MIGRATIONS,
        approvals: POSTGRES_APPROVAL_MIGRATIONS,
        app_meta: POSTGRES_APP_META_MIGRATIONS,
        agents: POSTGRES_AGENT_MIGRATIONS,
        agent_runs: POSTGRES_RUN_MIGRATIONS,
        gateway_oauth: POSTGRES_OAUTH_MIGRATIONS,
      },
    });
  } catch (error) {
    db.close();
    throw error;
  }
  const { pool, where } = postgres;
  lifecycle.defer('PostgreSQL', () => postgres.close());
  const checkpoints = postgresCheckpointStores(pool, where);
  lifecycle.defer('PostgreSQL checkpoints', () => checkpoints.close());
  const traces = new PostgresTraceStore(pool, where);
  // Torn down before the pool: the trace batches handed over are written first.
  lifecycle.defer('PostgreSQL traces', () => traces.drain());
  // Rules and pins are announced to the other cores on the database (core/sharedLists.ts).
  const origin = randomUUID();
  const rules = new PostgresPermissionRuleStore(pool, where, origin);
  const pins = await PostgresPinStore.open(pool, where, origin);
  lifecycle.defer('PostgreSQL tool pins', () => pins.drain());
  const appMeta = postgresAppMeta(pool, where);
  const runs = new PostgresRunStore(pool, where, origin);
  const oauth = await PostgresOAuthStore.open(pool, where, origin);
  await oauth.follow(selection.url);
  lifecycle.defer('PostgreSQL sign-in states', () => oauth.close());
  return {
    ...local,
    appMeta,
    checkpoints,
    traces,
    rules,
    pins,
    runs,
    oauth,
    where,
    postgres: { pool, url: selection.url, origin },
  };
}
