/**
 * Schema migrations on PostgreSQL. Unlike the SQLite file's one linear history (storage/
 * migrate.ts), each component (checkpoints, traces, …) keeps its own version in
 * `miniharness_schema`: components evolve apart, and a database serves several processes that
 * may use different components. All of a start's migrations run in one transaction under an
 * advisory lock, so processes starting at once migrate once, and a failed migration leaves the
 * previous schema whole (PostgreSQL's DDL is transactional).
 */
import type pg from 'pg';
import { MigrationListError, SchemaTooNewError } from '../errors.js';

export interface PostgresMigration {
  /** 1, 2, 3, … within its component. */
  version: number;
  name: string;
  /** SQL run inside the migration transaction. */
  sql: string;
}

/** The advisory lock key every MiniHarness process takes to migrate (any fixed number; "mh-m" in ASCII). */
const MIGRATION_LOCK = 0x6d682d6d;

export async function runPostgresMigrations(
  client: pg.PoolClient,
  components: Readonly<Record<string, readonly PostgresMigration[]>>,
): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS miniharness_schema (component text PRIMARY KEY, version integer NOT NULL)`,
    );
    for (const [component, migrations] of Object.entries(components)) {
      migrations.forEach((m, i) => {
        if (m.version !== i + 1)
          throw new MigrationListError(`${component} migration ${m.version} is at place ${i + 1}`);
      });
      const found = await client.query<{ version: number }>(
        'SELECT version FROM miniharness_schema WHERE component = $1',
        [component],
      );
      const current = found.rows[0]?.version ?? 0;
      if (current > migrations.length) throw new SchemaTooNewError(current, migrations.length);
      for (const migration of migrations.slice(current)) await client.query(migration.sql);
      if (current < migrations.length)
        await client.query(
          `INSERT INTO miniharness_schema (component, version) VALUES ($1, $2)
           ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version`,
          [component, migrations.length],
        );
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
