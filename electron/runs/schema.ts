/**
 * The agent runs' tables (README “Run your own model”). A run is one conversation of a chosen model with a chosen
 * set of tools; its messages are stored one row each, in order, as each turn completes; each
 * tool call the model made is a row of its own whose status moves pending → running → done as the
 * pipeline answers it, so the GUI shows the cards and a resume knows which results it already has.
 * The model configurations (no keys: those are in the secret store) are here too.
 */
import type { Migration } from '../storage/migrate.js';

const RUNS_V1: Omit<Migration, 'version'> = {
  name: 'runs: create the runs, run_messages, run_tool_calls and model_configs tables',
  up(db) {
    db.exec(`
      CREATE TABLE model_configs (
        id TEXT PRIMARY KEY,
        config_json TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        -- The model as configured when the run started (never a key).
        model_json TEXT NOT NULL,
        visibility_json TEXT NOT NULL,
        system_prompt TEXT,
        status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'stopped', 'failed', 'interrupted', 'needs_resolution', 'limit_reached')),
        -- Why it is not running: an error code and message, a limit's name, an unresolved call id.
        outcome_json TEXT,
        max_tool_calls INTEGER NOT NULL,
        token_budget INTEGER NOT NULL,
        tool_calls INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX runs_by_time ON runs (updated_at);

      CREATE TABLE run_messages (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        message_json TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) STRICT;

      CREATE TABLE run_tool_calls (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        -- The model's tool-call id: the pipeline's callId (sessionId = run id).
        call_id TEXT NOT NULL,
        -- The assistant message (run_messages.seq) that made the call.
        message_seq INTEGER NOT NULL,
        model_name TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        server_id TEXT NOT NULL,
        args_json TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done')),
        -- Set when done: what the model is told ({text, isError, code?}).
        result_json TEXT,
        trace_id TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (run_id, call_id)
      ) STRICT;
    `);
  },
};

/** At their place in the database file's one history (see storage/migrate.ts). */
export const RUN_MIGRATIONS: readonly Migration[] = [{ version: 9, ...RUNS_V1 }];
