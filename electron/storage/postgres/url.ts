/**
 * The database URL: how the core is pointed at PostgreSQL (`--database postgres://…` or
 * MINIHARNESS_DATABASE_URL), and how it is shown — never with its password or user. Every error
 * and log line that names the database uses `redactDatabaseUrl`; text that may carry a URL from
 * elsewhere (a driver's message) goes through `redactDatabaseUrls`.
 */

/** The environment variable that selects PostgreSQL for the core. */
const DATABASE_URL_ENV = 'MINIHARNESS_DATABASE_URL';

/** Is `url` a PostgreSQL URL (postgres:// or postgresql://)? */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(url);
}

/** The URL without user, password and query (which may carry `password=` or keys): scheme, host, port and database only. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    // Not a URL we can parse: show only its scheme, if any.
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
    return scheme ? `${scheme}//[hidden]` : '[hidden database address]';
  }
}

/** Replaces every postgres URL's credentials and query in free text (a driver's message). */
export function redactDatabaseUrls(text: string): string {
  return text.replace(/postgres(?:ql)?:\/\/[^\s'"<>]+/gi, (url) => redactDatabaseUrl(url));
}

/**
 * The database URL the process was started with: `--database <url>` / `--database=<url>` among
 * `argv`, else the environment variable; undefined means SQLite (the desktop default).
 */
export function databaseUrlFrom(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--database') return argv[i + 1];
    if (arg.startsWith('--database=')) return arg.slice('--database='.length);
  }
  const fromEnv = env[DATABASE_URL_ENV];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}
