/**
 * `miniharness serve`'s own PostgreSQL tables (component `serve_sessions` in miniharness_schema):
 * people's sessions (postgresSessions.ts) and the OpenID Connect sign-ins between their two
 * requests (oidcSignIn.ts), so any instance behind the balancer takes either request.
 */
import type { PostgresMigration } from '../storage/postgres/migrate.js';

export const SERVE_SESSION_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: "serve: people's sessions (secrets under their SHA-256) and OpenID Connect sign-ins in flight",
    sql: `
      CREATE TABLE serve_sessions (
        -- SHA-256 (hex) of the session cookie and of the bridge token: never the secrets themselves.
        cookie_sha256 text PRIMARY KEY,
        bridge_sha256 text NOT NULL,
        issuer text NOT NULL,
        subject text NOT NULL,
        person jsonb NOT NULL,
        role text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX serve_sessions_by_person ON serve_sessions (issuer, subject);
      CREATE INDEX serve_sessions_by_expiry ON serve_sessions (expires_at);
      CREATE TABLE serve_signins (
        -- SHA-256 of the OAuth state (the URL's and the browser cookie's value).
        state_sha256 text PRIMARY KEY,
        -- The PKCE verifier and nonce are needed as they are to finish the sign-in; gone after 10 minutes or once used.
        verifier text NOT NULL,
        nonce text NOT NULL,
        bootstrap_sha256 text,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX serve_signins_by_expiry ON serve_signins (expires_at);
    `,
  },
];
