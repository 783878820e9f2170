/**
 * The checkpoint store: a durable record per tool call (session + callId) that lets
 * `HarnessApplication.executeTool` replay a completed call instead of running its side effect
 * again.
 *
 * Guarantees, and their limit: the store is local, so it gives "at most once per callId *as
 * far as this machine knows*". A call whose owner died after sending the request but before
 * `complete` stays `started` forever — its effect on the server is unknown and only a person
 * (History → resolve by hand) or the server can tell. Strict exactly-once needs the remote
 * server to deduplicate with its own idempotency keys (e.g. pass the callId along); this store
 * cannot provide it alone.
 *
 * Except for a call the server ran as a task (the tasks extension): its `taskId` is recorded as
 * soon as the server names it, and the server can then be asked how it ended (taskLinks.ts).
 *
 * There is no stored 'unknown' status: a `started` record is shown as "in progress or result
 * unknown", because from the store's point of view the two are indistinguishable.
 */
import type { NormalizedToolResult } from '../results/toolResult.js';

export type CheckpointStatus = 'started' | 'completed' | 'failed';

/** What a completed call replays: the normalized tool result, stored as JSON. */
export type CheckpointResult = NormalizedToolResult;

interface CheckpointError {
  code?: string;
  message: string;
  /** When it was recorded (epoch ms). */
  at: number;
}

export interface CheckpointRecord {
  sessionId: string;
  callId: string;
  userId: string;
  toolName: string;
  serverId: string;
  status: CheckpointStatus;
  argsHash: string;
  /** The arguments as the caller stored them — already redacted. */
  args: unknown;
  /** Present when `completed`. */
  result?: CheckpointResult;
  /** The owner's last reported failure (the record stays `started`). */
  lastError?: CheckpointError;
  /** Attempts the owner reported through `recordFailure` (0 when none failed). */
  attempts: number;
  traceId: string;
  createdAt: number;
  updatedAt: number;
  /** The server's task id, when the call became a task (the tasks extension): the server can say how it ended. */
  taskId?: string;
  /** 'manual' when a person resolved a `started` record in History. */
  resolvedBy?: 'manual';
  resolvedAt?: number;
  resolutionNote?: string;
}

export interface ClaimInput {
  sessionId: string;
  callId: string;
  userId: string;
  toolName: string;
  serverId: string;
  /** `hashArguments(args)` of the arguments as sent (before redaction). */
  argsHash: string;
  /** The arguments to show in History, already redacted by the caller. */
  args: unknown;
  /**
   * `args` already serialized by the caller (see `checkpointArguments`), so the store does not
   * serialize them again; when present, the claim's record carries `args` as given.
   */
  argsJson?: string;
  traceId: string;
}

export type ClaimResult =
  /** This caller owns the call: run it, then `complete` (or `recordFailure`) with `lease`. */
  | { kind: 'owner'; lease: string; record: CheckpointRecord }
  /** The call already completed with these arguments: return `record.result` as is. */
  | { kind: 'replay'; record: CheckpointRecord & { status: 'completed'; result: CheckpointResult } };

export interface FailureInfo {
  code?: string;
  /** Already redacted by the caller. */
  message: string;
  /** Attempts made so far; when absent the stored count goes up by one. */
  attempts?: number;
  /**
   * The server refused the call before running it (it said so, with a coded error): the record
   * becomes `failed` — nothing to resolve by hand. Without it the record stays `started`.
   */
  notRun?: boolean;
  /**
   * The call ran as a server task that has ended there (the server confirmed it cancelled): the
   * record becomes `failed` — nothing runs it any more, nothing to resolve by hand.
   */
  ended?: boolean;
}

export type ManualResolution =
  { status: 'failed'; note?: string } | { status: 'completed'; result: CheckpointResult; note?: string };

/**
 * A stored status, or `tool_error`: completed with a result whose `isError` is true (`completed`
 * then excludes those), or `cancelled`: started, its last error a cancellation (`started` then
 * excludes those).
 */
type HistoryStatusFilter = CheckpointStatus | 'tool_error' | 'cancelled';

export interface HistoryQuery {
  sessionId?: string;
  status?: HistoryStatusFilter;
  toolName?: string;
  /** Only the calls of this caller: `gui`, or an agent's name. */
  userId?: string;
  /** Inclusive bounds on the last activity (updatedAt), epoch ms. */
  from?: number;
  to?: number;
  /** Page size; capped at 500. */
  limit: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

/**
 * In a history page, arguments or a result bigger than the inline limit are left out of the row
 * (`args` undefined, no `result`): the row carries their size and the first characters of their
 * JSON instead, and `get` returns the whole record.
 */
interface RecordPreview {
  /** Size of the stored arguments JSON, in bytes. */
  argsBytes: number;
  /** Size of the stored result JSON, in bytes (when there is a result). */
  resultBytes?: number;
  /** The start of the arguments JSON, when the arguments were left out. */
  args?: string;
  /** The start of the result JSON, when the result was left out. */
  result?: string;
  /** The left-out result's `isError`. */
  resultIsError?: boolean;
  /** True when the arguments or the result were left out of this row. */
  truncated: boolean;
}

export type HistoryEntry = CheckpointRecord & { preview?: RecordPreview };

export interface HistoryPage {
  /**
   * Newest activity first (updatedAt desc, then creation order desc). A record updated while
   * someone pages moves to the top, so later pages do not show it again. Rows with large
   * arguments or results carry a `preview` instead of them; a page also stops early once its
   * rows add up to the store's byte budget (its `nextCursor` then continues after the last row).
   */
  records: HistoryEntry[];
  /** Present when more records follow. */
  nextCursor?: string;
}

export interface SessionSummary {
  sessionId: string;
  /** Records in the session. */
  count: number;
  /** Records still `started` (in progress or result unknown) — the ones that may need a person. */
  started: number;
  /** Latest updatedAt in the session. */
  lastActivity: number;
}

/**
 * The writes of a tool call in flight, group-committed: concurrent calls share transactions, and
 * each promise settles once its write is committed — a claim is durable before the caller goes on
 * to the side effect, a result before the call returns. Same rules and errors as the synchronous
 * methods of the same names.
 */
export interface GroupedCheckpointWrites {
  claim(input: ClaimInput): Promise<ClaimResult>;
  /** Resolves once the result is stored (no record is read back). */
  complete(sessionId: string, callId: string, lease: string, result: CheckpointResult): Promise<void>;
  recordFailure(sessionId: string, callId: string, lease: string, error: FailureInfo): Promise<void>;
}

/**
 * Synchronous, because the SQLite implementation is: each method is one short transaction.
 * Callers in async code simply call it. The tool-call path uses `grouped` instead.
 */
export interface CheckpointStore {
  /** Claim, complete and failure writes that share transactions with other calls'. */
  readonly grouped: GroupedCheckpointWrites;
  /**
   * Atomically claims (sessionId, callId). Throws CheckpointArgumentsMismatchError when the call
   * was recorded with other arguments, tool, server or user; CheckpointInProgressError when it is
   * `started`; CheckpointFailedError when it was resolved as failed.
   */
  claim(input: ClaimInput): ClaimResult;
  /**
   * What `claim` would answer for a key that is already recorded — the replay, or the same errors —
   * without claiming anything; undefined when the key is new. Lets the pipeline answer a retry
   * before it asks anyone to approve a call that will not run.
   */
  peek(input: ClaimInput): ClaimResult | undefined;
  /** Saves the result if `lease` still owns the `started` record; else CheckpointLeaseLostError. */
  complete(sessionId: string, callId: string, lease: string, result: CheckpointResult): CheckpointRecord;
  /** Notes a failure; the record stays `started` because the remote side may have acted — `failed` when `error.notRun`. */
  recordFailure(sessionId: string, callId: string, lease: string, error: FailureInfo): CheckpointRecord;
  /** A person decides how a `started` call ended; refused on any other status. */
  resolveManually(sessionId: string, callId: string, resolution: ManualResolution): CheckpointRecord;
  get(sessionId: string, callId: string): CheckpointRecord | undefined;
  /** Bytes the record's stored JSON (arguments, result, error) takes, without reading it; undefined when there is none. */
  recordBytes(sessionId: string, callId: string): number | undefined;
  history(query: HistoryQuery): HistoryPage;
  listSessions(): SessionSummary[];
}

/**
 * The checkpoint store as every implementation offers it, asynchronously: SQLite (the embedded
 * default; `sqliteCheckpointStorage` wraps its synchronous store) and PostgreSQL
 * (postgresStore.ts, for several processes or machines on one database). The one conformance
 * suite (test/checkpoints/conformance.ts) runs against this interface for both. Same rules and
 * errors as `CheckpointStore`'s methods of the same names.
 *
 * Leases. A store built with a lease duration gives each claim a lease that expires unless its
 * owner renews it: the store renews the leases it holds on a timer (the owner process's
 * heartbeat), so a lease expires with its owner — a process killed mid-call stops renewing.
 * An expired lease is fenced: its holder can no longer complete or record a failure (a stale
 * owner that was only paused cannot overwrite what a person or the server decided since). The
 * record stays `started` — the call may have acted — and a duplicate is told its owner is gone
 * (`CheckpointInProgressError.ownerGone`), so a person or the server's task resolves it. A call
 * is never handed to a second owner: that would run it twice.
 */
export interface CheckpointStorage {
  claim(input: ClaimInput): Promise<ClaimResult>;
  peek(input: ClaimInput): Promise<ClaimResult | undefined>;
  complete(sessionId: string, callId: string, lease: string, result: CheckpointResult): Promise<CheckpointRecord>;
  recordFailure(sessionId: string, callId: string, lease: string, error: FailureInfo): Promise<CheckpointRecord>;
  /** Extends the lease's expiry; false when the lease is no longer the owner's (expired, completed, resolved). */
  renew(sessionId: string, callId: string, lease: string): Promise<boolean>;
  resolveManually(sessionId: string, callId: string, resolution: ManualResolution): Promise<CheckpointRecord>;
  get(sessionId: string, callId: string): Promise<CheckpointRecord | undefined>;
  /** Bytes the record's stored JSON (arguments, result, error) takes, without reading it; undefined when there is none. */
  recordBytes(sessionId: string, callId: string): Promise<number | undefined>;
  history(query: HistoryQuery): Promise<HistoryPage>;
  listSessions(): Promise<SessionSummary[]>;
  /** Stops renewing the leases this store holds (they then expire) and releases its connections. */
  close(): Promise<void>;
}

/**
 * What the tool-call pipeline (HarnessApplication) needs of a checkpoint store. On SQLite the
 * writes are the group-committed ones (`CheckpointStore.grouped`) — the speed of the desktop
 * default — and the reads the synchronous ones; on PostgreSQL, the `CheckpointStorage` itself.
 * Reads may answer at once or later: the pipeline awaits either.
 */
export interface PipelineCheckpoints {
  claim(input: ClaimInput): Promise<ClaimResult>;
  peek(input: ClaimInput): ClaimResult | undefined | Promise<ClaimResult | undefined>;
  get(sessionId: string, callId: string): CheckpointRecord | undefined | Promise<CheckpointRecord | undefined>;
  complete(sessionId: string, callId: string, lease: string, result: CheckpointResult): Promise<unknown>;
  recordFailure(sessionId: string, callId: string, lease: string, error: FailureInfo): Promise<unknown>;
}

/**
 * Where the core keeps its tool calls: History, replay and resolution through `storage` (either
 * implementation), the tool-call path through `pipeline`, server task ids through `taskLinks`.
 */
export interface CheckpointStores {
  storage: CheckpointStorage;
  pipeline: PipelineCheckpoints;
  taskLinks: TaskLinks;
}

/** A `started` record whose task the server can be asked about. */
export interface TaskLinkedCall {
  sessionId: string;
  callId: string;
  userId: string;
  serverId: string;
  toolName: string;
  taskId: string;
  traceId: string;
  /** The code of the record's last error: why the last look at its task did not settle it (`task_unknown_to_server`, …). */
  lastErrorCode?: string;
}

type TaskCall = Pick<TaskLinkedCall, 'sessionId' | 'callId' | 'taskId'>;

/**
 * The server task a checkpointed call became (taskLinks.ts on SQLite, synchronous;
 * postgresTaskLinks.ts on PostgreSQL). Each answer may come at once or later; callers await it.
 */
export interface TaskLinks {
  /** Records the task the owner's call became; false when the lease is no longer the owner's (or a task is already recorded). */
  link(sessionId: string, callId: string, lease: string, taskId: string): boolean | Promise<boolean>;
  /** Every `started` record that carries a task id. */
  pending(): TaskLinkedCall[] | Promise<TaskLinkedCall[]>;
  /** The task completed: its result is the record's (replayed from now on). False when the record moved on. */
  complete(call: TaskCall, result: CheckpointResult): boolean | Promise<boolean>;
  /** Asking the server did not settle the call: the record stays `started` and says why. False when the record moved on. */
  note(call: TaskCall, error: { code: string; message: string }): boolean | Promise<boolean>;
  /** The task failed or was cancelled: the record is `failed` with the server's reason. False when the record moved on. */
  fail(call: TaskCall, error: { code: string; message: string }): boolean | Promise<boolean>;
}
