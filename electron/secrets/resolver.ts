import type { SecretRef } from '../../shared/serverConfig.js';
import { SecretValue } from './secretValue.js';

/** Turns a secret reference from a configuration into its value, at connection time only. */
export interface SecretResolver {
  resolve(ref: SecretRef): Promise<SecretValue>;
}

/** A secret store keyed by name (the OS keyring, Electron safeStorage, a 0600 file). */
export interface SecretStore {
  get(key: string): Promise<SecretValue | undefined>;
  set(key: string, value: SecretValue): Promise<void>;
  delete(key: string): Promise<void>;
  has(key: string): Promise<boolean>;
}

export class SecretNotFoundError extends Error {
  readonly code = 'secret_missing';
  constructor(ref: SecretRef) {
    super(
      ref.source === 'env'
        ? `The environment variable ${ref.name} is not set. Set it before starting the app, or store the secret in the app instead.`
        : `No secret is stored under "${ref.key}". Enter it again in the server's settings.`,
    );
    this.name = 'SecretNotFoundError';
  }
}

/** Resolves `env` references from an environment and `store` references from a secret store. */
export class DefaultSecretResolver implements SecretResolver {
  constructor(
    private readonly store?: SecretStore,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async resolve(ref: SecretRef): Promise<SecretValue> {
    if (ref.source === 'env') {
      const value = this.env[ref.name];
      if (value === undefined || value === '') throw new SecretNotFoundError(ref);
      return new SecretValue(value);
    }
    const value = await this.store?.get(ref.key);
    if (!value) throw new SecretNotFoundError(ref);
    return value;
  }
}
