/**
 * Authentication for HTTP servers: a bearer token and secret-valued custom headers. The secret
 * values live in `SecretValue`s and are put on the wire by `applyTo()` only, so neither the auth
 * object nor anything that holds it can leak them through String(), JSON or util.inspect.
 */
import { inspect } from 'node:util';
import type { SecretValue } from '../secrets/secretValue.js';

export interface HttpAuth {
  /** Adds this auth's headers to an outgoing request's headers. */
  applyTo(headers: Headers): void;
  /** The secrets this auth holds, so callers can redact them from text that came from outside. */
  secrets(): SecretValue[];
}

export class BearerTokenAuth implements HttpAuth {
  readonly #token: SecretValue;

  constructor(token: SecretValue) {
    if (token.isEmpty) throw new Error('A bearer token must not be empty.');
    this.#token = token;
  }

  applyTo(headers: Headers): void {
    headers.set('Authorization', `Bearer ${this.#token.reveal()}`);
  }

  secrets(): SecretValue[] {
    return [this.#token];
  }

  toString(): string {
    return 'BearerTokenAuth([redacted])';
  }

  toJSON(): { kind: 'bearer'; token: '[redacted]' } {
    return { kind: 'bearer', token: '[redacted]' };
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/** Fixed headers, some of whose values may be secrets (an API key header, for example). */
export class HeaderAuth implements HttpAuth {
  readonly #plain: Record<string, string>;
  readonly #secret: Map<string, SecretValue>;

  constructor(plain: Record<string, string>, secret: Map<string, SecretValue>) {
    this.#plain = { ...plain };
    this.#secret = new Map(secret);
  }

  applyTo(headers: Headers): void {
    for (const [name, value] of Object.entries(this.#plain)) headers.set(name, value);
    for (const [name, value] of this.#secret) headers.set(name, value.reveal());
  }

  secrets(): SecretValue[] {
    return [...this.#secret.values()];
  }

  toString(): string {
    return `HeaderAuth(${this.#describe()})`;
  }

  toJSON(): Record<string, string> {
    const out: Record<string, string> = { ...this.#plain };
    for (const name of this.#secret.keys()) out[name] = '[redacted]';
    return out;
  }

  [inspect.custom](): string {
    return this.toString();
  }

  #describe(): string {
    return Object.entries(this.toJSON())
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
  }
}

/** Applies several auths in order (custom headers first, then the bearer token). */
export class CombinedAuth implements HttpAuth {
  constructor(private readonly parts: HttpAuth[]) {}

  applyTo(headers: Headers): void {
    for (const part of this.parts) part.applyTo(headers);
  }

  secrets(): SecretValue[] {
    return this.parts.flatMap((p) => p.secrets());
  }

  toString(): string {
    return `CombinedAuth(${this.parts.map(String).join(', ')})`;
  }

  toJSON(): unknown[] {
    return this.parts.map((p) => JSON.parse(JSON.stringify(p)) as unknown);
  }

  [inspect.custom](): string {
    return this.toString();
  }
}
