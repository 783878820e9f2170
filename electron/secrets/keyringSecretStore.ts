/**
 * Secrets in the OS keyring (Secret Service, Keychain, Credential Manager) through
 * @napi-rs/keyring — browser mode's first choice. `openBrowserSecretStore` probes it once and
 * falls back to the 0600 file when the platform refuses (headless Linux answers "AccessDenied").
 */
import { join } from 'node:path';
import { Entry } from '@napi-rs/keyring';
import type { DescribedSecretStore, SecretBackendInfo } from '../app/types.js';
import { FileSecretStore } from './fileSecretStore.js';
import { SecretValue } from './secretValue.js';

const SERVICE = 'MiniHarness Desktop';

export class KeyringSecretStore implements DescribedSecretStore {
  constructor(private readonly service = SERVICE) {}

  describe(): SecretBackendInfo {
    return { kind: 'keyring', secure: true };
  }

  async get(key: string): Promise<SecretValue | undefined> {
    const value = new Entry(this.service, key).getPassword();
    return value === null ? undefined : new SecretValue(value);
  }

  async has(key: string): Promise<boolean> {
    return new Entry(this.service, key).getPassword() !== null;
  }

  async set(key: string, value: SecretValue): Promise<void> {
    new Entry(this.service, key).setPassword(value.reveal());
  }

  async delete(key: string): Promise<void> {
    new Entry(this.service, key).deletePassword();
  }

  /** Writes, reads back and deletes a probe entry; throws what the platform answered. */
  probe(): void {
    const entry = new Entry(this.service, `probe-${process.pid}`);
    entry.setPassword('probe');
    if (entry.getPassword() !== 'probe') throw new Error('the keyring did not return what was stored');
    entry.deletePassword();
  }
}

/** The keyring when it answers; else the file in the data folder, with the reason in its warning. */
export function openBrowserSecretStore(dataDir: string, keyring = new KeyringSecretStore()): DescribedSecretStore {
  try {
    keyring.probe();
    return keyring;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return new FileSecretStore(join(dataDir, 'secrets.json'), `The OS keyring is not available (${why})`);
  }
}
