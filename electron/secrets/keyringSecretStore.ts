/**
 * Secrets in the OS keyring (Secret Service, Keychain, Credential Manager) through
 * @napi-rs/keyring — browser mode's first choice. Every call uses the library's async API
 * (`AsyncEntry`), which runs on libuv's thread pool: a slow D-Bus answer never blocks the event
 * loop. `openBrowserSecretStore` probes it once and falls back to the 0600 file when the
 * platform refuses (headless Linux answers "AccessDenied").
 */
import { join } from 'node:path';
import { AsyncEntry } from '@napi-rs/keyring';
import type { DescribedSecretStore, SecretBackendInfo } from './types.js';
import { FileSecretStore } from './fileSecretStore.js';
import { PRODUCT_NAME } from '../../shared/product.js';
import { SecretValue } from './secretValue.js';

/** The keyring service the secrets are filed under: changing it would orphan stored secrets. */
const SERVICE = PRODUCT_NAME;

export class KeyringSecretStore implements DescribedSecretStore {
  constructor(private readonly service = SERVICE) {}

  describe(): SecretBackendInfo {
    return { kind: 'keyring', secure: true };
  }

  async get(key: string): Promise<SecretValue | undefined> {
    const value = await new AsyncEntry(this.service, key).getPassword();
    return value === null || value === undefined ? undefined : new SecretValue(value);
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async set(key: string, value: SecretValue): Promise<void> {
    await new AsyncEntry(this.service, key).setPassword(value.reveal());
  }

  async delete(key: string): Promise<void> {
    await new AsyncEntry(this.service, key).deletePassword();
  }

  /** Writes, reads back and deletes a probe entry; rejects with what the platform answered. */
  async probe(): Promise<void> {
    const entry = new AsyncEntry(this.service, `probe-${process.pid}`);
    await entry.setPassword('probe');
    if ((await entry.getPassword()) !== 'probe') throw new Error('the keyring did not return what was stored');
    await entry.deletePassword();
  }
}

/** The keyring when it answers; else the file in the data folder, with the reason in its warning. */
export async function openBrowserSecretStore(
  dataDir: string,
  keyring: Pick<KeyringSecretStore, 'probe'> & DescribedSecretStore = new KeyringSecretStore(),
): Promise<DescribedSecretStore> {
  try {
    await keyring.probe();
    return keyring;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return new FileSecretStore(join(dataDir, 'secrets.json'), `The OS keyring is not available (${why})`);
  }
}
