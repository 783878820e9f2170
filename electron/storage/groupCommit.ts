/**
 * Group commit: the writes of concurrent tool calls (checkpoint claims and completions, trace
 * events) share SQLite transactions, while each caller still learns of its write only once it is
 * committed.
 *
 * A write is queued, and the queue is written in ONE `BEGIN IMMEDIATE` transaction on the next
 * turn of the event loop (`setImmediate`): everything that became ready in this turn — a chunk of
 * answers from a server, a burst of requests from an agent — joins it. `commit(write)` resolves
 * once that transaction has committed, so a claim is durable before its caller goes on to the
 * side effect, and a result before the call returns: the promise is the durability point.
 * `later(write)` is for writes nobody waits for (trace events): they ride along with the next
 * transaction.
 *
 * A failing write does not sink the batch: it gets its own error, and SQLite has undone its one
 * statement (each queued write is a single statement, or reads before one write). An error that
 * ends the whole transaction (disk full, I/O) fails every write of the batch, and nothing of it
 * is reported as stored.
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

export class GroupCommit {
  readonly #db: Database;
  readonly #runBatch: Transaction<(batch: QueuedWrite[], outcomes: Outcome[]) => void>;
  #queue: QueuedWrite[] = [];
  #scheduled = false;
  readonly #stats: GroupCommitStats = { transactions: 0, writes: 0, largestBatch: 0, busyMs: 0 };
  readonly #afterCommit = new Set<() => void>();

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
    return this.#queue.length;
  }

  /**
   * Runs `write` inside the next group transaction. Resolves with what it returned once the
   * transaction has committed; rejects with its own error, or with the transaction's.
   */
  commit<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#enqueue({ write, settle: (outcome) => (outcome.ok ? resolve(outcome.value as T) : reject(outcome.error)) });
    });
  }

  /** Queues a write nobody waits for; `onStored` runs once it is committed, `onFailed` if it is not. */
  later(write: () => void, onStored: () => void, onFailed: (error: unknown) => void): void {
    this.#enqueue({ write, settle: (outcome) => (outcome.ok ? onStored() : onFailed(outcome.error)) });
  }

  /** Called after every committed transaction (the WAL checkpointer counts them). */
  onCommit(listener: () => void): () => void {
    this.#afterCommit.add(listener);
    return () => this.#afterCommit.delete(listener);
  }

  /** Commits everything queued now, in one transaction, then settles each write. */
  flush(): void {
    if (this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
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
    batch.forEach((item, i) => settleSafely(item, failure ? { ok: false, error: failure.error } : (outcomes[i] as Outcome)));
  }

  #enqueue(item: QueuedWrite): void {
    this.#queue.push(item);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#db.open) this.flush();
      else this.#failAll(new TypeError('The database connection is not open'));
    });
  }

  #failAll(error: unknown): void {
    const batch = this.#queue;
    this.#queue = [];
    for (const item of batch) settleSafely(item, { ok: false, error });
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
