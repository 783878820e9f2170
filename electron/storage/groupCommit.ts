/**
 * Group commit: the writes of concurrent tool calls (checkpoint claims and completions, trace
 * events) share SQLite transactions, while each caller still learns of its write only once it is
 * committed.
 *
 * Two kinds of write:
 * - `commit(write)` — a write someone waits for (a claim, a result). The queue is written in ONE
 *   `BEGIN IMMEDIATE` transaction on the next turn of the event loop (`setImmediate`), so
 *   everything that became ready in this turn — a chunk of answers from a server, a burst of
 *   requests from an agent — shares it; each promise settles once that transaction committed:
 *   a claim is durable before its caller goes on to the side effect, a result before the call
 *   returns. The promise is the durability point.
 * - `later(write)` — a write nobody waits for (trace events). These are written `LATER_MS` after
 *   the first of them was queued, each in a transaction of its own, one per turn of the event
 *   loop: the commits a call waits for carry only its claim or its result (every page a
 *   transaction touches is written to the WAL again, so small waited-for commits are the fast
 *   ones), and the trace writes of all the calls of those milliseconds share a few commits. A
 *   writer keeps each of its writes small (traceWriter.ts), so no single commit holds up the
 *   answers waiting in the event loop for long — that stall was the pipeline's p99. A process
 *   killed in between loses those trace events — never a checkpoint.
 * `flush()` writes everything queued now (readers and `close()` call it).
 *
 * A failing write does not sink the batch: it gets its own error, and SQLite has undone its one
 * statement (each queued write is a single statement, or reads before one write). An error that
 * ends the whole transaction (disk full, I/O, a lock held too long by another process) fails
 * every write of the batch, and nothing of it is reported as stored.
 *
 * One queue per connection (`groupCommitFor`), so the checkpoint store and the tracer built over
 * the same database share its transactions. `stats` counts transactions and writes: what the
 * tests and the benchmark observe.
 */
import type { Database, Transaction } from 'better-sqlite3';

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface QueuedWrite {
  write: () => unknown;
  settle: (outcome: Outcome) => void;
}

export interface GroupCommitStats {
  /** Transactions committed. */
  transactions: number;
  /** Writes committed (or refused on their own) inside them. */
  writes: number;
  /** The most writes one transaction carried. */
  largestBatch: number;
  /** Time spent inside the transactions, writes and commit included (ms). */
  busyMs: number;
}

/**
 * How long writes nobody waits for are gathered before they are committed together. Every page a
 * commit touches goes to the WAL whole (4 KiB), and a batch of traces touches the same b-trees
 * (the traces table and its four indexes; the events' only for a trace written across batches,
 * traceWriter.ts) whatever it holds: at 10 ms a
 * sequential gateway call (~1.3 ms) shared them with ~7 others, at 50 ms with ~35 (issue 33:
 * 53 → 42 KB written per call, bench:gateway-cpu). A killed process loses at most these 50 ms of
 * trace events, never a checkpoint.
 */
export const LATER_MS = 50;

export class GroupCommit {
  readonly #db: Database;
  readonly #runBatch: Transaction<(batch: QueuedWrite[], outcomes: Outcome[]) => void>;
  /** Waited-for writes (commit). */
  #urgent: QueuedWrite[] = [];
  /** Writes nobody waits for (later). */
  #lazy: QueuedWrite[] = [];
  /** Writes nobody waits for whose time came: written one per turn, oldest first. */
  #due: QueuedWrite[] = [];
  #dueScheduled = false;
  #urgentScheduled = false;
  #lazyTimer: NodeJS.Timeout | undefined;
  readonly #stats: GroupCommitStats = { transactions: 0, writes: 0, largestBatch: 0, busyMs: 0 };
  readonly #afterCommit = new Set<() => void>();
  readonly #onFailure = new Set<(error: unknown) => void>();

  constructor(db: Database) {
    this.#db = db;
    this.#runBatch = db.transaction((batch: QueuedWrite[], outcomes: Outcome[]) => {
      for (const item of batch) {
        try {
          outcomes.push({ ok: true, value: item.write() });
        } catch (error) {
          // SQLite undid the failed statement; a failure that ended the transaction ends the batch.
          if (!db.inTransaction) throw error;
          outcomes.push({ ok: false, error });
        }
      }
    });
  }

  get stats(): Readonly<GroupCommitStats> {
    return { ...this.#stats };
  }

  /** Writes still queued (not yet in a transaction). */
  get pending(): number {
    return this.#urgent.length + this.#due.length + this.#lazy.length;
  }

  /**
   * Runs `write` inside the next group transaction. Resolves with what it returned once the
   * transaction has committed; rejects with its own error, or with the transaction's.
   */
  commit<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#urgent.push({
        write,
        settle: (outcome) => (outcome.ok ? resolve(outcome.value as T) : reject(outcome.error)),
      });
      if (this.#urgentScheduled) return;
      this.#urgentScheduled = true;
      setImmediate(() => {
        this.#urgentScheduled = false;
        this.#write(this.#takeUrgent());
      });
    });
  }

  /**
   * Queues a write nobody waits for: written with the others queued meanwhile, `LATER_MS` after
   * the first of them (or at the next `flush()`). `onStored` runs once it is committed, `onFailed` if it is not.
   */
  later(write: () => void, onStored: () => void, onFailed: (error: unknown) => void): void {
    this.#lazy.push({ write, settle: (outcome) => (outcome.ok ? onStored() : onFailed(outcome.error)) });
    this.#lazyTimer ??= setTimeout(() => {
      this.#lazyTimer = undefined;
      this.#due.push(...this.#takeLazy());
      this.#writeDue();
    }, LATER_MS);
  }

  /** Commits the oldest due write, and leaves the next one to the next turn (answers are read in between). */
  #writeDue(): void {
    const item = this.#due.shift();
    if (!item) return;
    this.#write([item]);
    if (this.#due.length === 0 || this.#dueScheduled) return;
    this.#dueScheduled = true;
    setImmediate(() => {
      this.#dueScheduled = false;
      this.#writeDue();
    });
  }

  /** Called after every committed transaction (the WAL checkpointer counts them). */
  onCommit(listener: () => void): () => void {
    this.#afterCommit.add(listener);
    return () => this.#afterCommit.delete(listener);
  }

  /** Called with the error of every write that failed, on its own or with its whole transaction (a disk full). */
  onFailure(listener: (error: unknown) => void): () => void {
    this.#onFailure.add(listener);
    return () => this.#onFailure.delete(listener);
  }

  /** Commits everything queued now (waited-for writes first), in one transaction, then settles each write. */
  flush(): void {
    clearTimeout(this.#lazyTimer);
    this.#lazyTimer = undefined;
    const due = this.#due;
    this.#due = [];
    this.#write([...this.#takeUrgent(), ...due, ...this.#takeLazy()]);
  }

  #takeUrgent(): QueuedWrite[] {
    const batch = this.#urgent;
    this.#urgent = [];
    return batch;
  }

  #takeLazy(): QueuedWrite[] {
    const batch = this.#lazy;
    this.#lazy = [];
    return batch;
  }

  #write(batch: QueuedWrite[]): void {
    if (batch.length === 0) return;
    if (!this.#db.open) {
      for (const item of batch)
        settleSafely(item, { ok: false, error: new TypeError('The database connection is not open') });
      return;
    }
    const outcomes: Outcome[] = [];
    let failure: { error: unknown } | undefined;
    const started = performance.now();
    try {
      this.#runBatch.immediate(batch, outcomes);
    } catch (error) {
      failure = { error };
    }
    this.#stats.busyMs += performance.now() - started;
    if (!failure) {
      this.#stats.transactions++;
      this.#stats.writes += batch.length;
      this.#stats.largestBatch = Math.max(this.#stats.largestBatch, batch.length);
      for (const listener of this.#afterCommit) listener();
    }
    batch.forEach((item, i) =>
      settleSafely(item, failure ? { ok: false, error: failure.error } : (outcomes[i] as Outcome)),
    );
    if (this.#onFailure.size === 0) return;
    const errors = failure ? [failure.error] : outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.error]));
    for (const error of errors) for (const listener of this.#onFailure) listener(error);
  }
}

/** A settle callback that throws must not leave the rest of the batch unsettled, nor end the process. */
function settleSafely(item: QueuedWrite, outcome: Outcome): void {
  try {
    item.settle(outcome);
  } catch (error) {
    process.emitWarning(`A group-commit callback threw: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const queues = new WeakMap<Database, GroupCommit>();

/** The one group-commit queue of a connection (made on first use). */
export function groupCommitFor(db: Database): GroupCommit {
  let queue = queues.get(db);
  if (!queue) {
    queue = new GroupCommit(db);
    queues.set(db, queue);
  }
  return queue;
}
