/**
 * PostgreSQL through node-postgres (`pg`): the most used Node client, plain SQL with numbered
 * parameters, a connection pool, LISTEN/NOTIFY on a dedicated client, and no native addon.
 *
 * `openPostgres` connects once before it returns (an unreachable server is a sentence at start,
 * not at the first tool call), runs the given components' migrations (migrate.ts), and maps the
 * driver's failures to coded errors whose messages carry the URL without its credentials.
 */
import pg from 'pg';
import { CodedError } from '../../util/codedError.js';
import { DatabaseRefusedError, DatabaseUnreachableError } from '../errors.js';
import type { PostgresMigration } from './migrate.js';
import { runPostgresMigrations } from './migrate.js';
import { redactDatabaseUrl, redactDatabaseUrls } from './url.js';

export type PgPool = pg.Pool;

/** bigint columns (times in epoch ms, seq) as JavaScript numbers: every value stored is below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

export interface OpenPostgresOptions {
  /** Connections in the pool (default 10). */
  max?: number;
  /** Migrations of the components this process uses, by component. */
  migrations?: Readonly<Record<string, readonly PostgresMigration[]>>;
  /** Give up connecting after this many ms (default 5,000). */
  connectTimeoutMs?: number;
}

export interface PostgresDatabase {
  readonly pool: PgPool;
  /** The URL as it may be shown: no user, password or query. */
  readonly where: string;
  close(): Promise<void>;
}

/** Connection failures: the server never answered, or refused us before any statement ran. */
const UNREACHABLE_SQLSTATE = /^(08|28|3D|57P0)/;

export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PostgresDatabase> {
  const where = redactDatabaseUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    types,
  });
  // An idle client's error (the server restarted) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    try {
      if (options.migrations) await runPostgresMigrations(client, options.migrations);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw toStorageError(error, where, 'migrate its schema');
  }
  return { pool, where, close: () => pool.end() };
}

/**
 * A driver error as a coded storage error: unreachable (connection refused, timeout, bad
 * password, no such database) or refused (any SQLSTATE from a statement). Coded errors of our
 * own pass through unchanged.
 */
export function toStorageError(error: unknown, where: string, operation: string): Error {
  if (error instanceof CodedError) return error;
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = String((error as { code: unknown }).code);
    if (/^[0-9A-Z]{5}$/.test(code) && !UNREACHABLE_SQLSTATE.test(code))
      return new DatabaseRefusedError(operation, code, { cause: error });
    return new DatabaseUnreachableError(where, code, { cause: error });
  }
  if (error instanceof Error && /timeout|terminated|Connection/i.test(error.message))
    return new DatabaseUnreachableError(where, redactDatabaseUrls(error.message).slice(0, 120), { cause: error });
  return error instanceof Error ? error : new Error(redactDatabaseUrls(String(error)));
}
