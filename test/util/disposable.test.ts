import { describe, expect, it } from 'vitest';
import type { TeardownError } from '../../electron/util/disposable.js';
import { DisposableStore, toDisposable } from '../../electron/util/disposable.js';

describe('DisposableStore', () => {
  it('tears parts down in the reverse order they were registered, each awaited before the next', async () => {
    const store = new DisposableStore();
    const order: string[] = [];
    store.defer('database', () => void order.push('database'));
    store.defer('registry', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      order.push('registry');
    });
    store.add(toDisposable('gateway', () => void order.push('gateway')));
    await store.dispose();
    expect(order).toEqual(['gateway', 'registry', 'database']);
  });

  it('runs every teardown when some fail, then throws the failures together, named', async () => {
    const store = new DisposableStore();
    const ran: string[] = [];
    store.defer('database', () => void ran.push('database'));
    store.defer('oauth', () => {
      ran.push('oauth');
      throw new Error('keychain locked');
    });
    store.defer('registry', async () => {
      ran.push('registry');
      throw new Error('server did not exit');
    });
    store.defer('gateway', () => void ran.push('gateway'));
    const failure = await store.dispose().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ran).toEqual(['gateway', 'registry', 'oauth', 'database']);
    expect(failure).toBeInstanceOf(AggregateError);
    const errors = (failure as AggregateError).errors as TeardownError[];
    expect(errors.map((e) => [e.part, (e.cause as Error).message])).toEqual([
      ['registry', 'server did not exit'],
      ['oauth', 'keychain locked'],
    ]);
  });

  it('disposes once: a second call returns the same promise and runs nothing again', async () => {
    const store = new DisposableStore();
    let runs = 0;
    store.defer('part', () => void runs++);
    const first = store.dispose();
    expect(store.dispose()).toBe(first);
    await first;
    await store.dispose();
    expect(runs).toBe(1);
    expect(store.isDisposed).toBe(true);
  });

  it('disposes a part added after disposal at once, so nothing built during shutdown outlives it', async () => {
    const store = new DisposableStore();
    await store.dispose();
    let disposed = false;
    await new Promise<void>((resolve) =>
      store.defer('late', () => {
        disposed = true;
        resolve();
      }),
    );
    expect(disposed).toBe(true);
  });
});
