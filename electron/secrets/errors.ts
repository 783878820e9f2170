/**
 * Errors of the secret stores: a referenced secret that is not there, an OS secret storage that
 * cannot be used, a stored secret that no longer decrypts. Messages name the key or variable,
 * never a value.
 */
import type { SecretRef } from '../../shared/serverConfig.js';
import { CodedError } from '../util/codedError.js';

export type SecretErrorCode = 'secret_missing' | 'secret_storage_unavailable' | 'secret_undecryptable';

abstract class SecretError extends CodedError<SecretErrorCode> {}

/** A reference resolved at connection time (resolver.ts) names nothing that is set. */
export class SecretNotFoundError extends SecretError {
  readonly code = 'secret_missing';
  constructor(ref: SecretRef) {
    super(
      ref.source === 'env'
        ? `The environment variable ${ref.name} is not set. Set it before starting the app, or store the secret in the app instead.`
        : `No secret is stored under "${ref.key}". Enter it again in the server's settings.`,
    );
  }
}

/** The OS secret storage (Electron's safeStorage, shell/safeStorageSecrets.ts) cannot encrypt. */
export class SecretStorageUnavailableError extends SecretError {
  readonly code = 'secret_storage_unavailable';
  constructor() {
    super(
      "The operating system's secret storage is not available, so the secret was not saved. Use an environment-variable reference for it instead.",
    );
  }
}

export class SecretDecryptError extends SecretError {
  readonly code = 'secret_undecryptable';
  constructor(key: string) {
    super(
      `The stored secret "${key}" could not be decrypted (the system keyring or its key may have changed). Enter it again in the server's settings.`,
    );
  }
}
