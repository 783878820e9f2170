/**
 * WAL checkpoints off the call path. SQLite's automatic checkpoint runs inside whichever commit
 * pushes the WAL past 1000 pages — inside some tool call's claim or completion, which then waits
 * while pages are copied into the database file and synced. The app's connections turn it off
 * (`wal_autocheckpoint = 0`, see database.ts) and checkpoint here instead: once writes pause for
 * `idleMs`, and at the latest `maxDelayMs` after the first write since the last checkpoint, so
 * the WAL stays bounded under a steady load. No timer runs while nothing is written.
 *
 * Where it runs: for a file, on a connection of its own in a worker thread (`workerCheckpoints`),
 * so neither the page copying nor the fsyncs of a checkpoint ever block the event loop — calls
 * in flight go on committing to the WAL meanwhile (WAL lets one writer and a checkpoint work at
 * once). PASSIVE: it never waits for another connection's readers or writer; what it cannot copy
 * now, a later checkpoint does. The last connection to close checkpoints the rest (SQLite does).
 *
 * The catch-up: SQLite starts the WAL over (and the file is cut to `journal_size_limit`) only when
 * a write begins with every frame already copied — which never happens under a steady load if
 * the copying is all done elsewhere, since the app commits new frames while the worker copies:
 * the WAL then grew by every commit, without end (about 40 KiB per gateway call, measured). So
 * after each worker pass during which the app wrote, the few frames written meanwhile are copied
 * on the app's own connection (blocking, but only those frames and the sync), which completes the
 * checkpoint: the next commit starts the WAL over.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import type { CheckpointWorkerData, CheckpointWorkerReply, CheckpointWorkerRequest } from './walCheckpointWorker.js';

export interface CheckpointResult {
  /** 1 when another connection kept it from finishing. */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames copied into the database file. */
  checkpointed: number;
}

/** Runs one PASSIVE checkpoint and reports its result (or its error). */
export type CheckpointRunner = (done: (result: CheckpointResult | Error) => void) => void;

export interface WalCheckpointerOptions {
  /** Checkpoint once no write came for this long. */
  idleMs?: number;
  /** Checkpoint at least this long after the first write since the last checkpoint, busy or not. */
  maxDelayMs?: number;
  /** Where the checkpoint runs: on `db` itself (the default), or e.g. `workerCheckpoints(...)`. */
  runner?: CheckpointRunner;
  /** Called when the runner is done for good (stop). */
  onStop?: () => void;
}

const DEFAULT_CHECKPOINT_IDLE_MS = 25;
const DEFAULT_CHECKPOINT_MAX_DELAY_MS = 1_000;

export class WalCheckpointer {
  readonly #db: Database;
  readonly #idleMs: number;
  readonly #maxDelayMs: number;
  #runner: CheckpointRunner;
  readonly #onStop: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #firstWriteAt = 0;
  #lastWriteAt = 0;
  #running = false;
  /** When the running pass started (performance.now()). */
  #passStartedAt = 0;
  #runs = 0;
  #catchUps = 0;
  #last: CheckpointResult | undefined;
  #stopped = false;

  constructor(db: Database, options: WalCheckpointerOptions = {}) {
    this.#db = db;
    this.#idleMs = options.idleMs ?? DEFAULT_CHECKPOINT_IDLE_MS;
    this.#maxDelayMs = options.maxDelayMs ?? DEFAULT_CHECKPOINT_MAX_DELAY_MS;
    this.#runner = options.runner ?? this.#inThreadRunner;
    this.#onStop = options.onStop;
  }

  /** Checkpoints completed so far (by the timer, its catch-ups, or `checkpoint`). */
  get runs(): number {
    return this.#runs;
  }

  /** What the latest checkpoint did. */
  get last(): CheckpointResult | undefined {
    return this.#last;
  }

  /** Catch-up passes on the app's connection after a pass elsewhere (see the file comment). */
  get catchUps(): number {
    return this.#catchUps;
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

  /** Copies what it can of the WAL into the database file now, on this connection (blocking). */
  checkpoint(mode: 'PASSIVE' | 'TRUNCATE' = 'PASSIVE'): CheckpointResult {
    const result = this.#inThread(mode);
    this.#finished(result);
    return result;
  }

  /** No more checkpoints from here (the connection is closing). */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#onStop?.();
  }

  /** Checkpoints on the app's connection itself (blocking): the default, and the fallback. */
  readonly #inThreadRunner: CheckpointRunner = (done) => {
    let result: CheckpointResult;
    try {
      result = this.#inThread('PASSIVE');
    } catch (error) {
      return done(error instanceof Error ? error : new Error(String(error)));
    }
    done(result);
  };

  #inThread(mode: 'PASSIVE' | 'TRUNCATE'): CheckpointResult {
    const [result = { busy: 0, log: 0, checkpointed: 0 }] = this.#db.pragma(
      `wal_checkpoint(${mode})`,
    ) as CheckpointResult[];
    return result;
  }

  #catchUp(): void {
    try {
      this.#finished(this.#inThread('PASSIVE'));
      this.#catchUps++;
    } catch {
      // Nothing is lost: the frames stay in the WAL for the next pass.
    }
  }

  #finished(result: CheckpointResult): void {
    this.#runs++;
    this.#last = result;
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
    if (this.#running || (idleFor < this.#idleMs && waitedFor < this.#maxDelayMs)) {
      this.#schedule(this.#running ? this.#idleMs : Math.min(this.#idleMs - idleFor, this.#maxDelayMs - waitedFor));
      return;
    }
    this.#running = true;
    this.#passStartedAt = now;
    const runner = this.#runner;
    runner((outcome) => {
      this.#running = false;
      if (this.#stopped) return;
      if (!(outcome instanceof Error)) {
        this.#finished(outcome);
        // Written to while the pass ran elsewhere: copy those frames here, so the WAL can start over.
        if (runner !== this.#inThreadRunner && this.#lastWriteAt >= this.#passStartedAt && this.#db.open)
          this.#catchUp();
        return;
      }
      // A failing checkpoint loses nothing (the frames stay in the WAL); the next write retries —
      // here, on this connection: a runner that failed (no worker thread, say) is not tried again.
      process.emitWarning(`WAL checkpoint failed (${outcome.message}); checkpoints now run on the app's connection`);
      this.#runner = this.#inThreadRunner;
    });
  }
}

/**
 * The worker's module: built, `walCheckpointWorker.js` beside the main bundle (electron.vite.config.ts),
 * which imports better-sqlite3 as the bundle does; from the sources, the `.ts` file itself, which
 * Node runs with its built-in type stripping. A worker that cannot start (a host that cannot load
 * it) costs nothing but the thread: checkpoints then run on the app's connection (see `#tick`).
 */
function workerEntry(): string {
  const folder = dirname(fileURLToPath(import.meta.url));
  const built = join(folder, 'walCheckpointWorker.js');
  return existsSync(built) ? built : join(folder, 'walCheckpointWorker.ts');
}

/** How long close() waits for the worker's connection to close (it may be inside a checkpoint's fsync). */
const WORKER_CLOSE_WAIT_MS = 10_000;

/**
 * Checkpoints on a connection of their own in a worker thread, started at the first checkpoint
 * (a short-lived connection never starts one). `close()` closes that connection synchronously —
 * once it returns, nothing of ours holds the file open.
 */
export function workerCheckpoints(
  file: string,
  options: { timeout?: number },
): { runner: CheckpointRunner; close(): void } {
  let worker: Worker | undefined;
  let closed: SharedArrayBuffer | undefined;
  let pending: ((result: CheckpointResult | Error) => void) | undefined;
  const start = (): Worker => {
    closed = new SharedArrayBuffer(4);
    const data: CheckpointWorkerData = { file, options, closed };
    const started = new Worker(workerEntry(), { workerData: data });
    started.unref(); // never keeps the process alive
    started.on('message', (message: CheckpointWorkerReply) => {
      const done = pending;
      pending = undefined;
      done?.('result' in message ? message.result : new Error(message.error));
    });
    started.on('error', (error) => {
      const done = pending;
      pending = undefined;
      worker = undefined;
      done?.(error);
    });
    return started;
  };
  return {
    runner(done) {
      try {
        worker ??= start();
        pending = done;
        worker.postMessage('checkpoint' satisfies CheckpointWorkerRequest);
      } catch (error) {
        done(error instanceof Error ? error : new Error(String(error)));
      }
    },
    close() {
      if (!worker || !closed) return;
      const flag = new Int32Array(closed);
      worker.postMessage('close' satisfies CheckpointWorkerRequest);
      Atomics.wait(flag, 0, 0, WORKER_CLOSE_WAIT_MS);
      worker = undefined;
      pending = undefined; // a checkpoint cut short by closing loses nothing: the last connection to close checkpoints
    },
  };
}
