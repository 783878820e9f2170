/**
 * The checkpoints table. One row per (session, call); `seq` is a unique, increasing key that
 * breaks ties between rows updated in the same millisecond, so keyset pages are exact.
 */
import type { Migration } from '../storage/migrate.js';

const CHECKPOINTS_V1: Omit<Migration, 'version'> = {
  name: 'checkpoints: create the checkpoints table and its history indexes',
  up(db) {
    db.exec(`
      CREATE TABLE checkpoints (
        seq INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        server_id TEXT NOT NULL,
        -- 'unknown' is never stored: a 'started' row is "in progress or result unknown".
        status TEXT NOT NULL CHECK (status IN ('started', 'completed', 'failed')),
        args_hash TEXT NOT NULL,
        args_json TEXT NOT NULL,
        result_json TEXT,
        -- The owner's random lease; NULL once the row leaves 'started'.
        lease TEXT,
        last_error_json TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        trace_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        resolved_by TEXT CHECK (resolved_by IN ('manual')),
        resolved_at INTEGER,
        resolution_note TEXT,
        UNIQUE (session_id, call_id)
      ) STRICT;

      -- History pages: newest first, optionally by session, status or tool. Each index ends
      -- with (updated_at, seq) so a page is one ordered range read with no sort.
      CREATE INDEX checkpoints_by_time ON checkpoints (updated_at, seq);
      CREATE INDEX checkpoints_by_session ON checkpoints (session_id, updated_at, seq);
      CREATE INDEX checkpoints_by_status ON checkpoints (status, updated_at, seq);
      CREATE INDEX checkpoints_by_tool ON checkpoints (tool_name, updated_at, seq);
    `);
  },
};

/** The checkpoints' migrations, at their place in the database file's one history (see storage/migrate.ts): a new one takes the next free number. */
export const CHECKPOINT_MIGRATIONS: readonly Migration[] = [{ version: 1, ...CHECKPOINTS_V1 }];
