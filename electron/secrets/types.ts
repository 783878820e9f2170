/**
 * The secret-store interfaces, owned by the secrets layer that implements them (the keyring and
 * file stores here, Electron's safeStorage in shell/): the hosts and the app import them from here.
 */
import type { FileDamagedWarning } from '../../shared/contract/warnings.js';
import type { SecretValue } from './secretValue.js';

/** A secret store keyed by name (the OS keyring, Electron safeStorage, a 0600 file). */
export interface SecretStore {
  get(key: string): Promise<SecretValue | undefined>;
  set(key: string, value: SecretValue): Promise<void>;
  delete(key: string): Promise<void>;
  has(key: string): Promise<boolean>;
}

export interface SecretBackendInfo {
  kind: 'safeStorage' | 'keyring' | 'file';
  /** False when the OS does not encrypt the secrets (Linux basic_text, or the file fallback). */
  secure: boolean;
  warning?: string;
}

/** A secret store that can say how safe it is (shown in the GUI). */
export interface DescribedSecretStore extends SecretStore {
  describe(): SecretBackendInfo;
  /** Reads the store's file now (when it has one) and says which damaged files it moved aside. */
  damagedFiles?(): Promise<readonly FileDamagedWarning[]>;
}
