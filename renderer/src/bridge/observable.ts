/** A minimal value-with-listeners, enough for the connection state (usable with useSyncExternalStore). */
export interface Observable<T> {
  get(): T;
  subscribe(listener: (value: T) => void): () => void;
}

export interface MutableObservable<T> extends Observable<T> {
  set(value: T): void;
}

export function observable<T>(initial: T): MutableObservable<T> {
  let value = initial;
  const listeners = new Set<(value: T) => void>();
  return {
    get: () => value,
    set(next) {
      value = next;
      for (const listener of [...listeners]) listener(next);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
