/**
 * The steps that change a PostgreSQL store's in-memory copy — its own writes read back and its
 * re-reads after another instance's notice — applied one at a time, in order. A re-read asked for
 * while one is queued and not started yet is not queued again: it reads everything anyway.
 */
export class SerialQueue {
  #tail: Promise<void> = Promise.resolve();
  #coalescedQueued = false;

  /** Runs `step` after every step queued before it; its failure is the caller's (the queue goes on). */
  run(step: () => Promise<void>): Promise<void> {
    const run = this.#tail.then(step);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Queues `step` unless an earlier one queued this way has not started; undefined when not queued. */
  coalesced(step: () => Promise<void>): Promise<void> | undefined {
    if (this.#coalescedQueued) return undefined;
    this.#coalescedQueued = true;
    return this.run(async () => {
      this.#coalescedQueued = false;
      await step();
    });
  }

  /** Settles once every step queued so far has. */
  idle(): Promise<void> {
    return this.#tail;
  }
}
