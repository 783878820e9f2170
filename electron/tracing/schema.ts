/**
 * Trace tables. `traces.seq` orders the list (keyset pages on (started_at, seq));
 * events are keyed by (trace_id, seq) so reading one trace's events is one range read.
 */
import type { Migration } from '../storage/migrate.js';

const TRACES_V1: Omit<Migration, 'version'> = {
  name: 'tracing: create the traces and trace_events tables',
  up(db) {
    db.exec(`
      CREATE TABLE traces (
        seq INTEGER PRIMARY KEY,
        trace_id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        server_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error', 'denied', 'replayed')),
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        duration_ms INTEGER,
        error TEXT -- JSON {code?, message}, redacted
      ) STRICT;

      CREATE INDEX traces_by_time ON traces (started_at, seq);
      CREATE INDEX traces_by_tool ON traces (tool_name, started_at, seq);
      CREATE INDEX traces_by_server ON traces (server_id, started_at, seq);
      CREATE INDEX traces_by_status ON traces (status, started_at, seq);
      CREATE INDEX traces_by_session ON traces (session_id, started_at, seq);

      CREATE TABLE trace_events (
        trace_id TEXT NOT NULL REFERENCES traces (trace_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        duration_ms INTEGER,
        data TEXT NOT NULL, -- JSON, redacted
        PRIMARY KEY (trace_id, seq)
      ) STRICT, WITHOUT ROWID;
    `);
  },
};

/**
 * Adds the `interrupted` status (a trace whose process died before it finished, closed at the
 * next start) and the `owner` column (which process records the trace, see
 * storage/processOwner.ts). SQLite cannot change a CHECK constraint in place, and dropping
 * `traces` while foreign keys are on would cascade into `trace_events` (the pragma cannot be
 * turned off inside the migration's transaction), so both tables are rebuilt: new tables, copy,
 * drop the old ones, rename. Renaming the new parent rewrites the children's REFERENCES clause.
 */
const TRACES_V2: Omit<Migration, 'version'> = {
  name: 'tracing: add the interrupted status and the owner process of each trace',
  up(db) {
    db.exec(`
      CREATE TABLE traces_v2 (
        seq INTEGER PRIMARY KEY,
        trace_id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        server_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error', 'denied', 'replayed', 'interrupted')),
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        duration_ms INTEGER,
        error TEXT, -- JSON {code?, message}, redacted
        owner TEXT -- JSON ProcessOwner of the process that records it; NULL for traces written before
      ) STRICT;
      INSERT INTO traces_v2 (seq, trace_id, session_id, call_id, user_id, tool_name, server_id, status, started_at, ended_at, duration_ms, error)
        SELECT seq, trace_id, session_id, call_id, user_id, tool_name, server_id, status, started_at, ended_at, duration_ms, error FROM traces;

      CREATE TABLE trace_events_v2 (
        trace_id TEXT NOT NULL REFERENCES traces_v2 (trace_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        duration_ms INTEGER,
        data TEXT NOT NULL, -- JSON, redacted
        PRIMARY KEY (trace_id, seq)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO trace_events_v2 SELECT trace_id, seq, type, at, duration_ms, data FROM trace_events;

      DROP TABLE trace_events;
      DROP TABLE traces;
      ALTER TABLE traces_v2 RENAME TO traces;
      ALTER TABLE trace_events_v2 RENAME TO trace_events;

      CREATE INDEX traces_by_time ON traces (started_at, seq);
      CREATE INDEX traces_by_tool ON traces (tool_name, started_at, seq);
      CREATE INDEX traces_by_server ON traces (server_id, started_at, seq);
      CREATE INDEX traces_by_status ON traces (status, started_at, seq);
      CREATE INDEX traces_by_session ON traces (session_id, started_at, seq);
    `);
  },
};

/**
 * Fewer writes per call: two indexes instead of five. The Traces view lists all traces or one
 * session's, newest first, optionally by tool, server and status: `traces_by_time` and
 * `traces_by_session` serve the two orders, and carry the filter columns, which SQLite tests on
 * the index entry before it reads the row. The per-filter indexes (tool, server, status), which
 * every trace start — and for status every finish — had to update, are dropped.
 */
const TRACES_V3: Omit<Migration, 'version'> = {
  name: 'tracing: two list indexes carrying the filter columns instead of one index per filter',
  up(db) {
    db.exec(`
      DROP INDEX traces_by_time;
      DROP INDEX traces_by_tool;
      DROP INDEX traces_by_server;
      DROP INDEX traces_by_status;
      DROP INDEX traces_by_session;
      CREATE INDEX traces_by_time ON traces (started_at, seq, status, tool_name, server_id, session_id);
      CREATE INDEX traces_by_session ON traces (session_id, started_at, seq, status, tool_name, server_id);
    `);
  },
};

/**
 * Per caller: the Agents view counts each agent's calls and shows its last one, and History and
 * Traces filter by caller. Without an index each of those read every trace (37 ms at 10k traces,
 * 367 ms at 100k, on the event loop); with it, a range of the index.
 */
const TRACES_V4: Omit<Migration, 'version'> = {
  name: 'tracing: an index by caller (user_id) for the Agents view and the caller filter',
  up(db) {
    db.exec(`CREATE INDEX traces_by_user ON traces (user_id, started_at, seq);`);
  },
};

/**
 * Adds the `cancelled` status: a call its caller cancelled, or the app ended (an agent revoked, a
 * server removed), was recorded as `denied` (while it waited for approval) or `error` (while it
 * ran) and could not be told apart. Rebuilt as TRACES_V2 was (a CHECK cannot change in place,
 * and dropping the parent would cascade), with the indexes of V3 and V4; traces already recorded
 * as cancelled — their stored error's code says so — take the new status.
 */
const TRACES_V5: Omit<Migration, 'version'> = {
  name: 'tracing: add the cancelled status',
  up(db) {
    db.exec(`
      CREATE TABLE traces_v5 (
        seq INTEGER PRIMARY KEY,
        trace_id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        server_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error', 'denied', 'replayed', 'interrupted', 'cancelled')),
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        duration_ms INTEGER,
        error TEXT, -- JSON {code?, message}, redacted
        owner TEXT -- JSON ProcessOwner of the process that records it; NULL for traces written before
      ) STRICT;
      INSERT INTO traces_v5 (seq, trace_id, session_id, call_id, user_id, tool_name, server_id, status, started_at, ended_at, duration_ms, error, owner)
        SELECT seq, trace_id, session_id, call_id, user_id, tool_name, server_id,
          CASE
            WHEN status = 'denied' AND json_valid(error) AND json_extract(error, '$.code') = 'approval_cancelled' THEN 'cancelled'
            WHEN status = 'error' AND json_valid(error) AND json_extract(error, '$.code') = 'cancelled' THEN 'cancelled'
            ELSE status
          END,
          started_at, ended_at, duration_ms, error, owner FROM traces;

      CREATE TABLE trace_events_v5 (
        trace_id TEXT NOT NULL REFERENCES traces_v5 (trace_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        duration_ms INTEGER,
        data TEXT NOT NULL, -- JSON, redacted
        PRIMARY KEY (trace_id, seq)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO trace_events_v5 SELECT trace_id, seq, type, at, duration_ms, data FROM trace_events;

      DROP TABLE trace_events;
      DROP TABLE traces;
      ALTER TABLE traces_v5 RENAME TO traces;
      ALTER TABLE trace_events_v5 RENAME TO trace_events;

      CREATE INDEX traces_by_time ON traces (started_at, seq, status, tool_name, server_id, session_id);
      CREATE INDEX traces_by_session ON traces (session_id, started_at, seq, status, tool_name, server_id);
      CREATE INDEX traces_by_user ON traces (user_id, started_at, seq);
    `);
  },
};

/**
 * Fewer rows per call: a trace written whole in one batch (a short call: started, its events and
 * finished between two trace writes, traceWriter.ts) keeps its events in its own row, `events`, a
 * JSON array of `[seq, type, at, duration_ms, data]` — one row instead of one more per event,
 * and one b-tree fewer per batch. A trace written across batches keeps its events in
 * `trace_events` as before (NULL `events`), as does every trace recorded before this migration.
 */
const TRACES_V6: Omit<Migration, 'version'> = {
  name: 'tracing: a finished short trace carries its events in its own row',
  up(db) {
    db.exec(`ALTER TABLE traces ADD COLUMN events TEXT;`);
  },
};

/** The traces' migrations, at their place in the database file's one history (see storage/migrate.ts): a new one takes the next free number. */
export const TRACE_MIGRATIONS: readonly Migration[] = [
  { version: 2, ...TRACES_V1 },
  { version: 4, ...TRACES_V2 },
  { version: 6, ...TRACES_V3 },
  { version: 7, ...TRACES_V4 },
  { version: 8, ...TRACES_V5 },
  { version: 13, ...TRACES_V6 },
];
