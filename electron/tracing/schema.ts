/**
 * Trace tables. `traces.seq` orders the list (keyset pages on (started_at, seq));
 * events are keyed by (trace_id, seq) so reading one trace's events is one range read.
 */
import type { Migration } from '../storage/migrate.js';

export const TRACES_V1: Omit<Migration, 'version'> = {
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
