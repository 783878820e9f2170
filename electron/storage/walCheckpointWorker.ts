/**
 * The WAL checkpointer's worker thread (walCheckpointer.ts, `workerCheckpoints`): a connection of
 * its own to the database file, one PASSIVE checkpoint per message, and on `close` that connection
 * closed before the shared flag wakes the closing thread (which waits synchronously).
 *
 * A module of its own, built like the rest (electron.vite.config.ts emits it beside the main
 * bundle); from the sources (tests, tsx) Node runs this file with its built-in type stripping, so
 * it uses only erasable TypeScript and imports nothing of ours.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** What the opening thread hands the worker. */
export interface CheckpointWorkerData {
  file: string;
  options: { timeout?: number };
  /** An Int32 flag set to 1 once the worker's connection is closed. */
  closed: SharedArrayBuffer;
}

export type CheckpointWorkerRequest = 'checkpoint' | 'close';

export type CheckpointWorkerReply = { result: { busy: number; log: number; checkpointed: number } } | { error: string };

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function serve(port: NonNullable<typeof parentPort>, data: CheckpointWorkerData): void {
  let db: Database.Database | undefined;
  try {
    db = new Database(data.file, data.options);
  } catch (error) {
    port.postMessage({ error: messageOf(error) } satisfies CheckpointWorkerReply);
  }
  port.on('message', (message: CheckpointWorkerRequest) => {
    if (message === 'close') {
      try {
        db?.close();
      } catch {
        // Closing is best effort: the last connection to close checkpoints what is left.
      }
      const flag = new Int32Array(data.closed);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      port.close();
      return;
    }
    try {
      if (!db) throw new Error('the checkpoint connection did not open');
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{
        busy: number;
        log: number;
        checkpointed: number;
      }>;
      port.postMessage({ result: result ?? { busy: 0, log: 0, checkpointed: 0 } } satisfies CheckpointWorkerReply);
    } catch (error) {
      port.postMessage({ error: messageOf(error) } satisfies CheckpointWorkerReply);
    }
  });
}

if (parentPort) serve(parentPort, workerData as CheckpointWorkerData);
