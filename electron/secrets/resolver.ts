import type { SecretRef } from '../../shared/serverConfig.js';
import { SecretValue } from './secretValue.js';
import type { SecretStore } from './types.js';

/** Turns a secret reference from a configuration into its value, at connection time only. */
export interface SecretResolver {
  resolve(ref: SecretRef): Promise<SecretValue>;
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
