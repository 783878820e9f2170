/**
 * Lifecycles, in VS Code's shape: a part that must be torn down is a `Disposable`, registered in a
 * `DisposableStore` where it is created, so the order of teardown is the reverse of the order of
 * construction by construction — no hand-ordered list of steps to keep in sync with the wiring.
 *
 * One teardown failing never skips the others: each runs, then the failures are thrown together
 * (an AggregateError naming each part). Disposing twice returns the first disposal's promise.
 */
export interface Disposable {
  dispose(): void | Promise<void>;
}

/** A teardown function as a Disposable; `name` says which part failed when it throws. */
export function toDisposable(
  name: string,
  teardown: () => void | Promise<void>,
): Disposable & { readonly name: string } {
  return { name, dispose: teardown };
}

/** A teardown that failed, named. */
export class TeardownError extends Error {
  constructor(
    readonly part: string,
    override readonly cause: unknown,
  ) {
    super(`${part}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'TeardownError';
  }
}

export class DisposableStore implements Disposable {
  readonly #parts: Array<{ name: string; disposable: Disposable }> = [];
  #disposing: Promise<void> | undefined;

  /** Whether `dispose()` was called. */
  get isDisposed(): boolean {
    return this.#disposing !== undefined;
  }

  /**
   * Registers `disposable`, torn down before everything registered earlier. Added after the store
   * was disposed, it is disposed at once (a part built during shutdown must not outlive it).
   */
  add<T extends Disposable>(disposable: T, name = (disposable as { name?: unknown }).name): T {
    const label = typeof name === 'string' && name !== '' ? name : `part ${this.#parts.length + 1}`;
    if (this.#disposing) {
      void Promise.resolve()
        .then(() => disposable.dispose())
        .catch(() => undefined);
      return disposable;
    }
    this.#parts.push({ name: label, disposable });
    return disposable;
  }

  /** Registers a teardown function under `name`. */
  defer(name: string, teardown: () => void | Promise<void>): void {
    this.add(toDisposable(name, teardown));
  }

  /** Tears every part down, last registered first, each awaited; throws their failures together. */
  dispose(): Promise<void> {
    this.#disposing ??= (async () => {
      const failures: TeardownError[] = [];
      for (const { name, disposable } of this.#parts.splice(0).reverse()) {
        try {
          await disposable.dispose();
        } catch (error) {
          failures.push(new TeardownError(name, error));
        }
      }
      if (failures.length > 0)
        throw new AggregateError(failures, `Teardown failed for ${failures.map((f) => f.part).join(', ')}`);
    })();
    return this.#disposing;
  }
}
