/**
 * The runs' SQLite store. Every write is one short synchronous transaction, done as the run
 * advances — an assistant turn and its tool calls land together, each call's status as it
 * moves, the results turn once all are answered — so a process killed at any instant leaves a
 * store from which `RunEngine.resume` rebuilds the conversation exactly.
 */
import type { Database } from 'better-sqlite3';
import { AgentVisibilitySchema } from '../../shared/agents.js';
import type { ModelConfig } from '../models/providerFactory.js';
import type { ConversationMessage } from '../models/types.js';
import { requireMigrations } from '../storage/migrate.js';
import { RUN_MIGRATIONS } from './schema.js';
import type { NewRun, RoutedCall, RunStorage } from './runStorage.js';
import { RESUMABLE_STATUSES } from './runStorage.js';
import type { RunOutcome, RunRecord, RunStatus, RunToolCallRecord, StoredToolResult } from './types.js';

export interface RunRow {
  id: string;
  model_json: string;
  visibility_json: string;
  system_prompt: string | null;
  status: RunStatus;
  outcome_json: string | null;
  max_tool_calls: number;
  token_budget: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  created_at: number;
  updated_at: number;
}

export interface CallRow {
  call_id: string;
  message_seq: number;
  model_name: string;
  tool_name: string;
  server_id: string;
  args_json: string;
  status: RunToolCallRecord['status'];
  result_json: string | null;
  trace_id: string | null;
}

export class RunStore implements RunStorage {
  constructor(private readonly db: Database) {
    requireMigrations(db, 'runs', RUN_MIGRATIONS);
  }

  create(run: NewRun, firstMessage: ConversationMessage): RunRecord {
    const now = Date.now();
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO runs (id, model_json, visibility_json, system_prompt, status, max_tool_calls, token_budget, created_at, updated_at)
           VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
        )
        .run(
          run.id,
          JSON.stringify(run.model),
          JSON.stringify(run.visibility),
          run.systemPrompt ?? null,
          run.limits.maxToolCalls,
          run.limits.tokenBudget,
          now,
          now,
        );
      this.insertMessage(run.id, firstMessage, now);
    })();
    return this.require(run.id);
  }

  get(id: string): RunRecord | undefined {
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  require(id: string): RunRecord {
    const run = this.get(id);
    if (!run) throw new Error(`No run "${id}".`);
    return run;
  }

  /** Newest first. */
  list(limit = 200): RunRecord[] {
    return (this.db.prepare('SELECT * FROM runs ORDER BY updated_at DESC, id LIMIT ?').all(limit) as RunRow[]).map(
      toRecord,
    );
  }

  messages(runId: string): ConversationMessage[] {
    const rows = this.db
      .prepare('SELECT message_json FROM run_messages WHERE run_id = ? ORDER BY seq')
      .all(runId) as Array<{ message_json: string }>;
    return rows.map((row) => JSON.parse(row.message_json) as ConversationMessage);
  }

  toolCalls(runId: string): RunToolCallRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM run_tool_calls WHERE run_id = ? ORDER BY message_seq, rowid')
      .all(runId) as CallRow[];
    return rows.map(toolCallFromRow);
  }

  /** A completed model turn: its message, its calls (pending), its usage — one transaction. */
  appendAssistantTurn(
    runId: string,
    message: Extract<ConversationMessage, { role: 'assistant' }>,
    routed: RoutedCall[],
    usage: { inputTokens: number; outputTokens: number },
  ): void {
    const now = Date.now();
    this.db.transaction(() => {
      const seq = this.insertMessage(runId, message, now);
      const insert = this.db.prepare(
        `INSERT INTO run_tool_calls (run_id, call_id, message_seq, model_name, tool_name, server_id, args_json, status, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
      );
      for (const { call, toolName, serverId } of routed)
        insert.run(runId, call.id, seq, call.name, toolName, serverId, JSON.stringify(call.args), now);
      this.db
        .prepare(
          'UPDATE runs SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, updated_at = ? WHERE id = ?',
        )
        .run(usage.inputTokens, usage.outputTokens, now, runId);
    })();
  }

  /** A call is about to go to the pipeline: it counts against the run's limit from now on. */
  markCallRunning(runId: string, callId: string): void {
    const now = Date.now();
    this.db.transaction(() => {
      const changed = this.db
        .prepare(
          `UPDATE run_tool_calls SET status = 'running', updated_at = ? WHERE run_id = ? AND call_id = ? AND status = 'pending'`,
        )
        .run(now, runId, callId);
      if (changed.changes)
        this.db.prepare('UPDATE runs SET tool_calls = tool_calls + 1, updated_at = ? WHERE id = ?').run(now, runId);
    })();
  }

  recordCallResult(runId: string, callId: string, result: StoredToolResult, traceId: string | undefined): void {
    this.db
      .prepare(
        `UPDATE run_tool_calls SET status = 'done', result_json = ?, trace_id = ?, updated_at = ? WHERE run_id = ? AND call_id = ?`,
      )
      .run(JSON.stringify(result), traceId ?? null, Date.now(), runId, callId);
  }

  appendMessage(runId: string, message: ConversationMessage): void {
    this.db.transaction(() => this.insertMessage(runId, message, Date.now()))();
  }

  setStatus(runId: string, status: RunStatus, outcome?: RunOutcome): void {
    this.db
      .prepare('UPDATE runs SET status = ?, outcome_json = ?, updated_at = ? WHERE id = ?')
      .run(status, outcome ? JSON.stringify(outcome) : null, Date.now(), runId);
  }

  markResumed(runId: string): boolean {
    return (
      this.db
        .prepare(
          `UPDATE runs SET status = 'running', outcome_json = NULL, updated_at = ? WHERE id = ? AND status IN (${RESUMABLE_STATUSES.map(() => '?').join(', ')})`,
        )
        .run(Date.now(), runId, ...RESUMABLE_STATUSES).changes > 0
    );
  }

  /** At start-up: runs a dead process left `running` are `interrupted` (shown with Resume). */
  markInterrupted(): number {
    return this.db
      .prepare(`UPDATE runs SET status = 'interrupted', outcome_json = ?, updated_at = ? WHERE status = 'running'`)
      .run(JSON.stringify({ code: 'interrupted', message: 'The app stopped while this run was running.' }), Date.now())
      .changes;
  }

  delete(runId: string): boolean {
    return this.db.prepare(`DELETE FROM runs WHERE id = ? AND status <> 'running'`).run(runId).changes > 0;
  }

  saveModel(config: ModelConfig): void {
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO model_configs (id, config_json, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET config_json = excluded.config_json, updated_at = excluded.updated_at`,
      )
      .run(config.id, JSON.stringify(config), now, now);
  }

  models(): ModelConfig[] {
    return (
      this.db.prepare('SELECT config_json FROM model_configs ORDER BY created_at, id').all() as Array<{
        config_json: string;
      }>
    ).map((row) => JSON.parse(row.config_json) as ModelConfig);
  }

  deleteModel(id: string): boolean {
    return this.db.prepare('DELETE FROM model_configs WHERE id = ?').run(id).changes > 0;
  }

  private insertMessage(runId: string, message: ConversationMessage, now: number): number {
    const next = this.db
      .prepare('SELECT COALESCE(MAX(seq), -1) + 1 AS seq FROM run_messages WHERE run_id = ?')
      .get(runId) as { seq: number };
    this.db
      .prepare('INSERT INTO run_messages (run_id, seq, message_json, created_at) VALUES (?, ?, ?, ?)')
      .run(runId, next.seq, JSON.stringify(message), now);
    this.db.prepare('UPDATE runs SET updated_at = ? WHERE id = ?').run(now, runId);
    return next.seq;
  }
}

/** A row of `runs` (either store) as the record. */
export function toRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    model: JSON.parse(row.model_json) as ModelConfig,
    visibility: AgentVisibilitySchema.parse(JSON.parse(row.visibility_json)),
    systemPrompt: row.system_prompt ?? undefined,
    status: row.status,
    outcome: row.outcome_json ? (JSON.parse(row.outcome_json) as RunOutcome) : undefined,
    limits: { maxToolCalls: row.max_tool_calls, tokenBudget: row.token_budget },
    toolCalls: row.tool_calls,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A row of `run_tool_calls` (either store) as the record. */
export function toolCallFromRow(row: CallRow): RunToolCallRecord {
  return {
    call: { id: row.call_id, name: row.model_name, args: JSON.parse(row.args_json) as Record<string, unknown> },
    messageSeq: row.message_seq,
    toolName: row.tool_name,
    serverId: row.server_id,
    status: row.status,
    result: row.result_json ? (JSON.parse(row.result_json) as StoredToolResult) : undefined,
    traceId: row.trace_id ?? undefined,
  };
}
