/**
 * The app's one set of known secret values (tokens, API keys, stored and environment secrets the
 * app resolved) and the redaction functions bound to it. Built once by the composition root and
 * injected into everything that stores or shows text a secret may reach: the tracer, the
 * harness, the registry (what servers describe), the IPC dispatcher, the GUI's views.
 *
 * The set only grows (a value once known stays redacted for the life of the process); values
 * shorter than MIN_SECRET_LENGTH are ignored. The rules themselves are in redaction.ts.
 */
import type { JsonValue, SecretSet } from './redaction.js';
import { KnownSecrets, redact, redactKnownSecrets, redactReporting, redactString } from './redaction.js';

export class SecretRedactor implements SecretSet {
  readonly #secrets = new KnownSecrets();

  constructor(knownSecrets: Iterable<string> = []) {
    for (const secret of knownSecrets) this.add(secret);
  }

  /** Registers a secret value so it is replaced wherever it appears in later redactions. */
  add(value: string): void {
    this.#secrets.add(value); // ignores values shorter than MIN_SECRET_LENGTH
  }

  /** The known values, longest first (live: the registry redacts what servers describe with them). */
  get prepared(): readonly string[] {
    return this.#secrets.prepared;
  }

  /** Grows with each value added: text redacted at one version may need redacting again at a later one. */
  get version(): number {
    return this.#secrets.version;
  }

  /** Credential-named keys and known values out, as a JSON-only copy — for trace data, checkpoint args. */
  redact(value: unknown): JsonValue {
    return redact(value, this.#secrets);
  }

  /** `redact`, and whether anything changed (see redactReporting). */
  redactReporting(value: unknown): { value: JsonValue; changed: boolean } {
    return redactReporting(value, this.#secrets);
  }

  /** Known values replaced inside one string — for error messages and warnings. */
  redactText(text: string): string {
    return redactString(text, this.#secrets);
  }

  /** Known secret values only, shape kept — for tool results and events (see redactKnownSecrets). */
  redactSecretValues<T>(value: T): T {
    return redactKnownSecrets(value, this.#secrets);
  }
}
