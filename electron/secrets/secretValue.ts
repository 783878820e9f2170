import { inspect } from 'node:util';
import { REDACTED } from './redaction.js';

/**
 * A secret held in memory. Its string, JSON and inspected forms are all `[redacted]`, so a secret
 * that ends up in a log line, an error, a trace or an IPC payload by accident shows nothing.
 * Only `reveal()` gives the value, and only code that must send it (a transport) calls it.
 */
export class SecretValue {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  get isEmpty(): boolean {
    return this.#value.length === 0;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return `SecretValue(${REDACTED})`;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }
}
