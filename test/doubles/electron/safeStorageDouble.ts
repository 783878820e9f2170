/**
 * A test double of Electron's safeStorage: real encryption (AES-256-GCM with a per-instance
 * key) so ciphertexts look like the real ones, and knobs for what the tests need.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SafeStorageApi } from '../../../electron/shell/safeStorageSecrets.js';

export interface SafeStorageDoubleOptions {
  available?: boolean;
  backend?: string;
  /** Decryption reports that the key was rotated. */
  rotate?: boolean;
  key?: Buffer;
}

export class SafeStorageDouble implements SafeStorageApi {
  readonly key: Buffer;
  encryptCalls = 0;

  constructor(private readonly options: SafeStorageDoubleOptions = {}) {
    this.key = options.key ?? randomBytes(32);
  }

  async isAsyncEncryptionAvailable(): Promise<boolean> {
    return this.options.available ?? true;
  }

  getSelectedStorageBackend(): string {
    return this.options.backend ?? 'gnome_libsecret';
  }

  async encryptStringAsync(plainText: string): Promise<Buffer> {
    if (this.options.available === false) throw new Error('Encryption is not available.');
    this.encryptCalls++;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plainText, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from('v11'), iv, cipher.getAuthTag(), body]);
  }

  async decryptStringAsync(encrypted: Buffer): Promise<{ shouldReEncrypt: boolean; result: string }> {
    if (encrypted.subarray(0, 3).toString() !== 'v11')
      throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    const iv = encrypted.subarray(3, 15);
    const tag = encrypted.subarray(15, 31);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    const result = Buffer.concat([decipher.update(encrypted.subarray(31)), decipher.final()]).toString('utf8');
    return { shouldReEncrypt: this.options.rotate ?? false, result };
  }
}
