/**
 * Which database the core stores in: the local SQLite file (the default — nothing changes for a
 * person who never sets a URL), or PostgreSQL when started with `--database postgres://…` or
 * MINIHARNESS_DATABASE_URL. The URL is kept whole only to connect; anything shown or logged
 * uses `where` (no user, password or query).
 */
import { DatabaseUnreachableError } from './errors.js';
import { databaseUrlFrom, isPostgresUrl, redactDatabaseUrl } from './postgres/url.js';

export type DatabaseSelection = { kind: 'sqlite' } | { kind: 'postgres'; url: string; where: string };

/** Throws DatabaseUnreachableError (reason `unsupported_url`) for a URL that is not postgres:// or postgresql://. */
export function selectDatabase(argv: readonly string[], env: NodeJS.ProcessEnv): DatabaseSelection {
  return databaseAt(databaseUrlFrom(argv, env));
}

/** The selection for a URL already read (undefined: SQLite); throws as selectDatabase does. */
export function databaseAt(url: string | undefined): DatabaseSelection {
  if (url === undefined) return { kind: 'sqlite' };
  const where = redactDatabaseUrl(url);
  if (!isPostgresUrl(url))
    throw new DatabaseUnreachableError(where, 'unsupported_url: only postgres:// URLs are supported');
  return { kind: 'postgres', url, where };
}
