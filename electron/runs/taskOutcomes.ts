/**
 * A run's resume meets a call left "in progress or unknown" (its record `started`). When that
 * record carries a task id — the server ran the call as a task (the tasks extension) — the app's
 * task recovery (harness/taskRecovery.ts, started with the app) asks the server how it ended and
 * stores the outcome on the record. This waits for that recovery (its first look and the tasks it
 * follows to their end) so the run uses the server's outcome instead of stopping for the person:
 * completed → the call replays its result; failed → the model is told. A record without a task
 * id, or one the recovery could not settle, still stops the run (`needs_resolution`).
 */
import type { PipelineCheckpoints } from '../checkpoints/types.js';
import type { TaskRecovery } from '../harness/taskRecovery.js';

export class RunTaskOutcomes {
  private recovery: Promise<void> | undefined;

  constructor(private readonly checkpoints: Pick<PipelineCheckpoints, 'get'>) {}

  /** The app's task recovery, once it has begun; its failure only means nothing was settled. */
  track(recovery: Promise<TaskRecovery>): void {
    this.recovery = recovery.then(
      (r) => r.following.then(() => undefined),
      () => undefined,
    );
  }

  /**
   * For a `started` call with a task id: waits until the recovery has done what it can (or
   * `signal` ends the wait), then says whether the record is no longer `started` — the caller
   * then asks the pipeline again, which replays or refuses it by its new status.
   */
  async settled(sessionId: string, callId: string, signal: AbortSignal): Promise<boolean> {
    const record = await this.checkpoints.get(sessionId, callId);
    if (!this.recovery || record?.status !== 'started' || !record.taskId) return false;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      void this.recovery?.then(done);
    });
    return !signal.aborted && (await this.checkpoints.get(sessionId, callId))?.status !== 'started';
  }
}
