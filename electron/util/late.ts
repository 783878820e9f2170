/**
 * A part of a composition that another part, built before it, needs at run time — the one way
 * the wiring breaks a cycle (the registry names servers for the server-request dialogs that it is built
 * with). Naming the slot makes the cycle visible where it is declared; reading it before it is
 * set is a wiring mistake, reported by name instead of a TDZ ReferenceError.
 */
export class Late<T> {
  private value: T | undefined;
  private isSet = false;

  constructor(private readonly what: string) {}

  set(value: T): T {
    this.value = value;
    this.isSet = true;
    return value;
  }

  get(): T {
    if (!this.isSet) throw new Error(`${this.what} was used before it was built.`);
    return this.value as T;
  }
}
