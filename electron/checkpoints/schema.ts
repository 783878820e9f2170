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

/**
 * Fewer writes per call: the History view always pages ONE session (by status, tool error or tool
 * within it), so the session index is the only one its queries use. It is widened with the
 * filter columns — SQLite tests them on the index entry before it reads the row, so a rare
 * status in a session of 100,000 records costs an index walk, not 100,000 row reads — and the
 * indexes by time, status and tool, which every claim and completion had to update, are dropped.
 * `is_error` keeps a completed result's `isError`, so "tool error" is a column test rather than
 * a JSON parse of every result (it is filled from the stored results here).
 */
const CHECKPOINTS_V2: Omit<Migration, 'version'> = {
  name: 'checkpoints: keep only the session index (widened with the History filters), add is_error',
  up(db) {
    db.exec(`
      ALTER TABLE checkpoints ADD COLUMN is_error INTEGER CHECK (is_error IN (0, 1));
      UPDATE checkpoints SET is_error = CASE WHEN json_valid(result_json) AND json_extract(result_json, '$.isError') = 1 THEN 1 ELSE 0 END
        WHERE result_json IS NOT NULL;

      DROP INDEX checkpoints_by_time;
      DROP INDEX checkpoints_by_status;
      DROP INDEX checkpoints_by_tool;
      DROP INDEX checkpoints_by_session;
      CREATE INDEX checkpoints_by_session ON checkpoints (session_id, updated_at, seq, status, is_error, tool_name);
    `);
  },
};

/**
 * A call the server runs as a task (the tasks extension) carries the server's task id as soon as
 * the server names it: a `started` record with a task id is not "unknown" — the server can be
 * asked how it ended (taskLinks.ts). The partial index finds those records at start, and only those.
 */
const CHECKPOINTS_V3: Omit<Migration, 'version'> = {
  name: 'checkpoints: add task_id (the server task a call became) and an index of started calls with one',
  up(db) {
    db.exec(`
      ALTER TABLE checkpoints ADD COLUMN task_id TEXT;
      CREATE INDEX checkpoints_started_tasks ON checkpoints (server_id, task_id) WHERE status = 'started' AND task_id IS NOT NULL;
    `);
  },
};

/**
 * Leases that expire (see CheckpointStorage): when the store is given a lease duration, a claim
 * writes when its lease expires and the owner's heartbeat moves it on; `complete` is refused
 * once it passed. NULL — every row written before, and every row of a store without a lease
 * duration (the desktop default) — never expires, as before.
 */
const CHECKPOINTS_V4: Omit<Migration, 'version'> = {
  name: 'checkpoints: add lease_expires_at (leases that expire with their owner)',
  up(db) {
    db.exec(`ALTER TABLE checkpoints ADD COLUMN lease_expires_at INTEGER;`);
  },
};

/** The checkpoints' migrations, at their place in the database file's one history (see storage/migrate.ts): a new one takes the next free number. */
export const CHECKPOINT_MIGRATIONS: readonly Migration[] = [
  { version: 1, ...CHECKPOINTS_V1 },
  { version: 5, ...CHECKPOINTS_V2 },
  { version: 10, ...CHECKPOINTS_V3 },
  { version: 11, ...CHECKPOINTS_V4 },
];
