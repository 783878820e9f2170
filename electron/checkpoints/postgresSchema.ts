/**
 * The checkpoints table on PostgreSQL: the SQLite table's columns (so both stores share the
 * row shape, records.ts), plus the lease's expiry and fencing token.
 *
 * JSON is kept as `text`, not `jsonb`: a replay must return the bytes that were stored (jsonb
 * reorders keys and drops duplicates), and History measures and previews the stored text.
 */
import type { PostgresMigration } from '../storage/postgres/migrate.js';

export const POSTGRES_CHECKPOINT_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'checkpoints: create the table, its session index and the fencing sequence',
    sql: `
      CREATE TABLE checkpoints (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session_id text NOT NULL,
        call_id text NOT NULL,
        user_id text NOT NULL,
        tool_name text NOT NULL,
        server_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('started', 'completed', 'failed')),
        args_hash text NOT NULL,
        args_json text NOT NULL,
        result_json text,
        is_error smallint CHECK (is_error IN (0, 1)),
        -- The owner's lease ("f<fence>-<random>"); NULL once the row leaves 'started'.
        lease text,
        -- When the lease expires (epoch ms) unless its owner renews it.
        lease_expires_at bigint,
        last_error_json text,
        attempts integer NOT NULL DEFAULT 0,
        trace_id text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        resolved_by text CHECK (resolved_by IN ('manual')),
        resolved_at bigint,
        resolution_note text,
        task_id text,
        UNIQUE (session_id, call_id)
      );
      -- History pages one session newest first; across sessions, by time.
      CREATE INDEX checkpoints_by_session ON checkpoints (session_id, updated_at DESC, seq DESC) INCLUDE (status, is_error, tool_name);
      CREATE INDEX checkpoints_by_time ON checkpoints (updated_at DESC, seq DESC);
      CREATE INDEX checkpoints_started_tasks ON checkpoints (server_id, task_id) WHERE status = 'started' AND task_id IS NOT NULL;
      -- Fencing tokens: every lease granted on this database has a larger number than the ones before.
      CREATE SEQUENCE checkpoint_fence;
    `,
  },
];
