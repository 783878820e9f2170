/**
 * The agent runs in PostgreSQL (RunStorage, runStorage.ts), shared by the cores on one database:
 * a run started on one instance is listed and read on the others. Each write is one transaction
 * (READ COMMITTED: every write touches rows of one run, which only the process driving it
 * writes; a resume is one conditional UPDATE, so of two instances resuming one run exactly one
 * drives it), done as the run advances, as the SQLite store does, so a process killed at any
 * instant leaves what `RunEngine.resume` rebuilds the conversation from.
 *
 * The process driving a run is recorded (storage/processOwner.ts): at start, a core marks
 * `interrupted` only the running runs whose owner is provably gone, never another live
 * instance's. Every change is announced on `mh_runs` (the run's id only); `follow` hears the
 * other instances' and the service tells its GUI (`runs.changed`).
 */
import type pg from 'pg';
import type { ModelConfig } from '../models/providerFactory.js';
import type { ConversationMessage } from '../models/types.js';
import type { Listener } from '../storage/postgres/notify.js';
import { listen, publish } from '../storage/postgres/notify.js';
import type { PgPool } from '../storage/postgres/pool.js';
import { toStorageError } from '../storage/postgres/pool.js';
import type { PostgresMigration } from '../storage/postgres/migrate.js';
import { currentProcessOwner, decodeOwner, encodeOwner, ownerState } from '../storage/processOwner.js';
import type { NewRun, RoutedCall, RunStorage } from './runStorage.js';
import { RESUMABLE_STATUSES } from './runStorage.js';
import type { CallRow, RunRow } from './runStore.js';
import { toRecord, toolCallFromRow } from './runStore.js';
import type { RunOutcome, RunRecord, RunStatus, RunToolCallRecord, StoredToolResult } from './types.js';

export const POSTGRES_RUN_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'agent runs: runs (with the owning process), run_messages, run_tool_calls, model_configs',
    sql: `
      CREATE TABLE model_configs (
        id text PRIMARY KEY,
        config_json text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE TABLE runs (
        id text PRIMARY KEY,
        model_json text NOT NULL,
        visibility_json text NOT NULL,
        system_prompt text,
        status text NOT NULL CHECK (status IN ('running', 'completed', 'stopped', 'failed', 'interrupted', 'needs_resolution', 'limit_reached')),
        outcome_json text,
        max_tool_calls integer NOT NULL,
        token_budget bigint NOT NULL,
        tool_calls integer NOT NULL DEFAULT 0,
        input_tokens bigint NOT NULL DEFAULT 0,
        output_tokens bigint NOT NULL DEFAULT 0,
        -- The process driving it while running (processOwner.ts encodeOwner).
        owner text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX runs_by_time ON runs (updated_at DESC, id);
      CREATE TABLE run_messages (
        run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        message_json text NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE run_tool_calls (
        run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        call_id text NOT NULL,
        message_seq integer NOT NULL,
        -- Its place among the turn's calls (SQLite orders by rowid).
        position integer NOT NULL,
        model_name text NOT NULL,
        tool_name text NOT NULL,
        server_id text NOT NULL,
        args_json text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'running', 'done')),
        result_json text,
        trace_id text,
        updated_at bigint NOT NULL,
        PRIMARY KEY (run_id, call_id)
      );
    `,
  },
];

const RESUMABLE = [...RESUMABLE_STATUSES];

export class PostgresRunStore implements RunStorage {
  readonly #owner = encodeOwner(currentProcessOwner());

  /** `pool` has POSTGRES_RUN_MIGRATIONS applied; `origin` names this process in its notices. */
  constructor(
    private readonly pool: PgPool,
    private readonly where: string,
    private readonly origin: string,
  ) {}

  async create(run: NewRun, firstMessage: ConversationMessage): Promise<RunRecord> {
    const now = Date.now();
    await this.transaction('start a run', run.id, async (client) => {
      await client.query(
        `INSERT INTO runs (id, model_json, visibility_json, system_prompt, status, max_tool_calls, token_budget, owner, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'running', $5, $6, $7, $8, $8)`,
        [
          run.id,
          JSON.stringify(run.model),
          JSON.stringify(run.visibility),
          run.systemPrompt ?? null,
          run.limits.maxToolCalls,
          run.limits.tokenBudget,
          this.#owner,
          now,
        ],
      );
      await insertMessage(client, run.id, firstMessage, now);
    });
    return this.require(run.id);
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const [row] = await this.rows<RunRow>('read a run', 'SELECT * FROM runs WHERE id = $1', [id]);
    return row ? toRecord(row) : undefined;
  }

  async require(id: string): Promise<RunRecord> {
    const run = await this.get(id);
    if (!run) throw new Error(`No run "${id}".`);
    return run;
  }

  async list(limit = 200): Promise<RunRecord[]> {
    return (
      await this.rows<RunRow>('list the runs', 'SELECT * FROM runs ORDER BY updated_at DESC, id LIMIT $1', [limit])
    ).map(toRecord);
  }

  async messages(runId: string): Promise<ConversationMessage[]> {
    const rows = await this.rows<{ message_json: string }>(
      "read a run's messages",
      'SELECT message_json FROM run_messages WHERE run_id = $1 ORDER BY seq',
      [runId],
    );
    return rows.map((row) => JSON.parse(row.message_json) as ConversationMessage);
  }

  async toolCalls(runId: string): Promise<RunToolCallRecord[]> {
    return (
      await this.rows<CallRow>(
        "read a run's tool calls",
        'SELECT * FROM run_tool_calls WHERE run_id = $1 ORDER BY message_seq, position',
        [runId],
      )
    ).map(toolCallFromRow);
  }

  async appendAssistantTurn(
    runId: string,
    message: Extract<ConversationMessage, { role: 'assistant' }>,
    routed: RoutedCall[],
    usage: { inputTokens: number; outputTokens: number },
  ): Promise<void> {
    const now = Date.now();
    await this.transaction("store a run's model turn", runId, async (client) => {
      const seq = await insertMessage(client, runId, message, now);
      for (const [position, { call, toolName, serverId }] of routed.entries())
        await client.query(
          `INSERT INTO run_tool_calls (run_id, call_id, message_seq, position, model_name, tool_name, server_id, args_json, status, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9)`,
          [runId, call.id, seq, position, call.name, toolName, serverId, JSON.stringify(call.args), now],
        );
      await client.query(
        'UPDATE runs SET input_tokens = input_tokens + $1, output_tokens = output_tokens + $2, updated_at = $3 WHERE id = $4',
        [usage.inputTokens, usage.outputTokens, now, runId],
      );
    });
  }

  async markCallRunning(runId: string, callId: string): Promise<void> {
    const now = Date.now();
    await this.transaction("count a run's tool call", runId, async (client) => {
      const changed = await client.query(
        `UPDATE run_tool_calls SET status = 'running', updated_at = $1 WHERE run_id = $2 AND call_id = $3 AND status = 'pending'`,
        [now, runId, callId],
      );
      if (changed.rowCount)
        await client.query('UPDATE runs SET tool_calls = tool_calls + 1, updated_at = $1 WHERE id = $2', [now, runId]);
    });
  }

  async recordCallResult(
    runId: string,
    callId: string,
    result: StoredToolResult,
    traceId: string | undefined,
  ): Promise<void> {
    await this.write(
      "store a run's tool result",
      runId,
      `UPDATE run_tool_calls SET status = 'done', result_json = $1, trace_id = $2, updated_at = $3 WHERE run_id = $4 AND call_id = $5`,
      [JSON.stringify(result), traceId ?? null, Date.now(), runId, callId],
    );
  }

  async appendMessage(runId: string, message: ConversationMessage): Promise<void> {
    await this.transaction("store a run's message", runId, (client) =>
      insertMessage(client, runId, message, Date.now()),
    );
  }

  async setStatus(runId: string, status: RunStatus, outcome?: RunOutcome): Promise<void> {
    await this.write(
      "store a run's status",
      runId,
      'UPDATE runs SET status = $1, outcome_json = $2, updated_at = $3 WHERE id = $4',
      [status, outcome ? JSON.stringify(outcome) : null, Date.now(), runId],
    );
  }

  async markResumed(runId: string): Promise<boolean> {
    return (
      (await this.write(
        'resume a run',
        runId,
        `UPDATE runs SET status = 'running', outcome_json = NULL, owner = $1, updated_at = $2 WHERE id = $3 AND status = ANY ($4)`,
        [this.#owner, Date.now(), runId, RESUMABLE],
      )) > 0
    );
  }

  /** Only the running runs whose owner is provably gone: another instance's live runs stay running. */
  async markInterrupted(): Promise<number> {
    const running = await this.rows<{ id: string; owner: string | null }>(
      'find interrupted runs',
      `SELECT id, owner FROM runs WHERE status = 'running'`,
      [],
    );
    const self = currentProcessOwner();
    const dead = running
      .filter((row) => {
        const owner = decodeOwner(row.owner);
        return owner === undefined || ownerState(owner, self) === 'dead';
      })
      .map((row) => row.id);
    if (dead.length === 0) return 0;
    const outcome = JSON.stringify({ code: 'interrupted', message: 'The app stopped while this run was running.' });
    const changed = await this.rows<{ id: string }>(
      'mark interrupted runs',
      `UPDATE runs SET status = 'interrupted', outcome_json = $1, updated_at = $2
       WHERE id = ANY ($3) AND status = 'running' RETURNING id`,
      [outcome, Date.now(), dead],
    );
    for (const { id } of changed) await this.announce(id);
    return changed.length;
  }

  async delete(runId: string): Promise<boolean> {
    return (
      (await this.write('remove a run', runId, `DELETE FROM runs WHERE id = $1 AND status <> 'running'`, [runId])) > 0
    );
  }

  async saveModel(config: ModelConfig): Promise<void> {
    const now = Date.now();
    await this.rows(
      'save a model',
      `INSERT INTO model_configs (id, config_json, created_at, updated_at) VALUES ($1, $2, $3, $3)
       ON CONFLICT (id) DO UPDATE SET config_json = EXCLUDED.config_json, updated_at = EXCLUDED.updated_at`,
      [config.id, JSON.stringify(config), now],
    );
  }

  async models(): Promise<ModelConfig[]> {
    return (
      await this.rows<{ config_json: string }>(
        'read the models',
        'SELECT config_json FROM model_configs ORDER BY created_at, id',
        [],
      )
    ).map((row) => JSON.parse(row.config_json) as ModelConfig);
  }

  async deleteModel(id: string): Promise<boolean> {
    const result = await this.pool
      .query('DELETE FROM model_configs WHERE id = $1', [id])
      .catch((error: unknown) => Promise.reject(toStorageError(error, this.where, 'remove a model')));
    return (result.rowCount ?? 0) > 0;
  }

  /** Hears the other instances' run changes (their ids); resolves once listening. */
  follow(url: string, changed: (runId: string) => void): Promise<Listener> {
    return listen(url, ['mh_runs'], (_channel, notice) => {
      const runId = notice.ids?.runId;
      if (notice.from !== this.origin && notice.kind === 'run' && runId) changed(runId);
    });
  }

  private async rows<T extends pg.QueryResultRow>(operation: string, sql: string, params: unknown[]): Promise<T[]> {
    try {
      return (await this.pool.query<T>(sql, params)).rows;
    } catch (error) {
      throw toStorageError(error, this.where, operation);
    }
  }

  /** One statement that changes `runId`; announced once committed. Returns the rows it changed. */
  private async write(operation: string, runId: string, sql: string, params: unknown[]): Promise<number> {
    let count: number;
    try {
      count = (await this.pool.query(sql, params)).rowCount ?? 0;
    } catch (error) {
      throw toStorageError(error, this.where, operation);
    }
    if (count > 0) await this.announce(runId);
    return count;
  }

  private async transaction(
    operation: string,
    runId: string,
    body: (client: pg.PoolClient) => Promise<unknown>,
  ): Promise<void> {
    let client: pg.PoolClient | undefined;
    try {
      client = await this.pool.connect();
      await client.query('BEGIN');
      await body(client);
      await client.query('COMMIT');
    } catch (error) {
      await client?.query('ROLLBACK').catch(() => undefined);
      throw toStorageError(error, this.where, operation);
    } finally {
      client?.release();
    }
    await this.announce(runId);
  }

  /** The change is stored: a notice that cannot be sent only delays the others' view of it. */
  private async announce(runId: string): Promise<void> {
    await publish(this.pool, 'mh_runs', { kind: 'run', ids: { runId }, from: this.origin }).catch(() => undefined);
  }
}

async function insertMessage(
  client: pg.PoolClient,
  runId: string,
  message: ConversationMessage,
  now: number,
): Promise<number> {
  const inserted = await client.query<{ seq: number }>(
    `INSERT INTO run_messages (run_id, seq, message_json, created_at)
     SELECT $1, COALESCE(MAX(seq), -1) + 1, $2, $3 FROM run_messages WHERE run_id = $1 RETURNING seq`,
    [runId, JSON.stringify(message), now],
  );
  await client.query('UPDATE runs SET updated_at = $1 WHERE id = $2', [now, runId]);
  return inserted.rows[0]?.seq as number;
}
