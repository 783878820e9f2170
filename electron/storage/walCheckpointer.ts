/**
 * WAL checkpoints off the call path. SQLite's automatic checkpoint runs inside whichever commit
 * pushes the WAL past 1000 pages — inside some tool call's claim or completion, which then waits
 * while pages are copied into the database file and synced. The app's connections turn it off
 * (`wal_autocheckpoint = 0`, see database.ts) and checkpoint here instead: once writes pause for
 * `idleMs`, and at the latest `maxDelayMs` after the first write since the last checkpoint, so
 * the WAL stays bounded under a steady load. No timer runs while nothing is written.
 *
 * PASSIVE: it never waits for another connection's readers or writer; what it cannot copy now, a
 * later checkpoint does. The last connection to close checkpoints the rest (SQLite does).
 */
import type { Database } from 'better-sqlite3';

export interface WalCheckpointerOptions {
  /** Checkpoint once no write came for this long. */
  idleMs?: number;
  /** Checkpoint at least this long after the first write since the last checkpoint, busy or not. */
  maxDelayMs?: number;
}

export interface CheckpointResult {
  /** 1 when another connection kept it from finishing. */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames copied into the database file. */
  checkpointed: number;
}

export const DEFAULT_CHECKPOINT_IDLE_MS = 25;
export const DEFAULT_CHECKPOINT_MAX_DELAY_MS = 1_000;

export class WalCheckpointer {
  readonly #db: Database;
  readonly #idleMs: number;
  readonly #maxDelayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #firstWriteAt = 0;
  #lastWriteAt = 0;
  #runs = 0;
  #last: CheckpointResult | undefined;
  #stopped = false;

  constructor(db: Database, options: WalCheckpointerOptions = {}) {
    this.#db = db;
    this.#idleMs = options.idleMs ?? DEFAULT_CHECKPOINT_IDLE_MS;
    this.#maxDelayMs = options.maxDelayMs ?? DEFAULT_CHECKPOINT_MAX_DELAY_MS;
  }

  /** Checkpoints run so far (by the timer or by `checkpoint`). */
  get runs(): number {
    return this.#runs;
  }

  /** What the latest checkpoint did. */
  get last(): CheckpointResult | undefined {
    return this.#last;
  }

  /** A transaction committed: a checkpoint is due once writes pause (or after maxDelayMs). */
  noteWrite(): void {
    if (this.#stopped) return;
    const now = performance.now();
    this.#lastWriteAt = now;
    if (this.#timer) return;
    this.#firstWriteAt = now;
    this.#schedule(this.#idleMs);
  }

  /** Copies what it can of the WAL into the database file now. */
  checkpoint(mode: 'PASSIVE' | 'TRUNCATE' = 'PASSIVE'): CheckpointResult {
    const [result = { busy: 0, log: 0, checkpointed: 0 }] = this.#db.pragma(`wal_checkpoint(${mode})`) as CheckpointResult[];
    this.#runs++;
    this.#last = result;
    return result;
  }

  /** No more checkpoints from here (the connection is closing). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(ms: number): void {
    // unref: a pending checkpoint never keeps the process alive.
    this.#timer = setTimeout(() => this.#tick(), Math.max(1, ms)).unref();
  }

  #tick(): void {
    this.#timer = undefined;
    if (this.#stopped || !this.#db.open) return;
    const now = performance.now();
    const idleFor = now - this.#lastWriteAt;
    const waitedFor = now - this.#firstWriteAt;
    if (idleFor < this.#idleMs && waitedFor < this.#maxDelayMs) {
      this.#schedule(Math.min(this.#idleMs - idleFor, this.#maxDelayMs - waitedFor));
      return;
    }
    try {
      this.checkpoint();
    } catch (error) {
      // A busy or failing checkpoint loses nothing (the frames stay in the WAL); the next write retries.
      process.emitWarning(`WAL checkpoint failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
