/**
 * PostgreSQL for tests. Set MINIHARNESS_TEST_POSTGRES_URL to a server and a role that may
 * CREATE DATABASE (`.ci/run` starts one; see README "PostgreSQL"); each test file gets a database
 * of its own, dropped at the end. Without the variable the PostgreSQL tests are skipped with one
 * line saying how to run them — except where MINIHARNESS_TEST_POSTGRES_REQUIRED=1 (CI), where
 * their absence fails the run.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';

const ADMIN_URL = process.env.MINIHARNESS_TEST_POSTGRES_URL;
const REQUIRED = process.env.MINIHARNESS_TEST_POSTGRES_REQUIRED === '1';

export const HOW_TO_RUN =
  'PostgreSQL tests skipped: set MINIHARNESS_TEST_POSTGRES_URL=postgres://user:password@127.0.0.1:5432/postgres (a role that may CREATE DATABASE) to run them — see README "PostgreSQL"';

/** `describe` for PostgreSQL tests: runs them when a server is given, else one skipped line (or a failure in CI). */
export function describePostgres(name: string, body: () => void): void {
  if (ADMIN_URL) describe(name, body);
  else if (REQUIRED)
    describe(name, () =>
      it('needs PostgreSQL (MINIHARNESS_TEST_POSTGRES_REQUIRED=1)', () => {
        throw new Error('MINIHARNESS_TEST_POSTGRES_URL is not set, but this run requires the PostgreSQL tests.');
      }),
    );
  else {
    console.warn(HOW_TO_RUN); // the one line a developer without PostgreSQL sees
    describe.skip(HOW_TO_RUN, () => it('skipped', () => undefined));
  }
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database for one test file (its name: the file's tag, the pid and random bits). */
export async function createTestDatabase(tag: string): Promise<TestDatabase> {
  if (!ADMIN_URL) throw new Error(HOW_TO_RUN);
  const name = `mh_test_${tag.replace(/\W/g, '_').toLowerCase()}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: ADMIN_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
