/**
 * SerialQueue (the PostgreSQL stores' in-memory copy): steps run one at a time in order, a failed
 * step does not stop the ones after it, and a re-read asked for while one is still queued is not
 * queued twice (while one runs, the next is queued: it must read what changed meanwhile).
 */
import { describe, expect, it } from 'vitest';
import { SerialQueue } from '../../electron/storage/postgres/serialQueue.js';

describe('SerialQueue', () => {
  it('runs steps in order, one at a time; a failure is the caller’s and the queue goes on', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = queue.run(async () => {
      log.push('first starts');
      await held;
      log.push('first ends');
    });
    const failing = queue.run(async () => {
      log.push('second');
      throw new Error('refused');
    });
    const third = queue.run(async () => {
      log.push('third');
    });
    release();
    await first;
    await expect(failing).rejects.toThrow('refused');
    await third;
    await queue.idle();
    expect(log).toEqual(['first starts', 'first ends', 'second', 'third']);
  });

  it('queues one re-read while one is waiting, and one more once it has started', async () => {
    const queue = new SerialQueue();
    let reads = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    void queue.run(() => held);
    const read = async (): Promise<void> => {
      reads += 1;
    };
    const queued = queue.coalesced(read);
    expect(queued).toBeDefined();
    expect(queue.coalesced(read)).toBeUndefined();
    release();
    await queued;
    expect(reads).toBe(1);
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finish: () => void = () => undefined;
    const slow = queue.coalesced(async () => {
      started();
      await new Promise<void>((resolve) => (finish = resolve));
      reads += 1;
    });
    await running;
    const after = queue.coalesced(read);
    expect(after).toBeDefined();
    finish();
    await slow;
    await after;
    expect(reads).toBe(3);
  });
});
