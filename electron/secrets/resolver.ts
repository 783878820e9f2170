import type { SecretRef } from '../../shared/serverConfig.js';
import { SecretNotFoundError } from './errors.js';
import { SecretValue } from './secretValue.js';
import type { SecretStore } from './types.js';

/** Turns a secret reference from a configuration into its value, at connection time only. */
export interface SecretResolver {
  resolve(ref: SecretRef): Promise<SecretValue>;
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
