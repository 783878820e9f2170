/**
 * The Electron secret store: values encrypted with Electron's safeStorage (the OS keychain on
 * macOS, DPAPI on Windows, the Secret Service / KWallet on Linux) and kept as base64 ciphertexts
 * in one JSON file in the user's data folder (atomic writes, mode 0600). The plaintext never
 * touches the disk.
 *
 * On Linux without a keyring, Chromium falls back to `basic_text`: a fixed, public key. The
 * values are then only as safe as the file's permissions, and describe() says so (the GUI shows
 * it). `safeStorage` is passed in, so this file is tested with a double in plain Node.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { FileDamagedWarning } from '../../shared/contract.js';
import { SecretDecryptError, SecretStorageUnavailableError } from '../secrets/errors.js';
import type { DescribedSecretStore, SecretBackendInfo } from '../secrets/types.js';
import { SecretValue } from '../secrets/secretValue.js';
import { setAside } from '../storage/damagedFile.js';
import { ensurePrivateDir } from '../storage/privateFiles.js';

/** The part of Electron's safeStorage used here (Electron's object satisfies it). */
export interface SafeStorageApi {
  isAsyncEncryptionAvailable(): Promise<boolean>;
  encryptStringAsync(plainText: string): Promise<Buffer>;
  decryptStringAsync(encrypted: Buffer): Promise<{ shouldReEncrypt: boolean; result: string }>;
  /** Linux only. */
  getSelectedStorageBackend(): string;
}

export interface SafeStorageSecretsOptions {
  safeStorage: SafeStorageApi;
  /** The JSON file, e.g. `<userData>/secrets.json`. */
  file: string;
  platform?: NodeJS.Platform;
  now?: () => number;
}

const FILE_VERSION = 1;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const SecretsFileSchema = z.object({
  version: z.literal(FILE_VERSION),
  entries: z.record(z.string().min(1), z.string().regex(BASE64)),
});

const WARN_UNAVAILABLE =
  "The operating system's secret storage is not available: secrets cannot be saved in the app. Use environment-variable references, or run the app where a keyring is available.";
const WARN_BASIC_TEXT =
  "No system keyring was found (Linux 'basic_text'): saved secrets are encrypted with a fixed, publicly known key and are protected only by the file's permissions (0600). Install and unlock a keyring (GNOME Keyring or KWallet) and restart the app to protect them.";
const WARN_UNKNOWN_BACKEND =
  "Could not tell which system keyring protects saved secrets; treat them as protected only by the file's permissions (0600).";

export async function openSafeStorageSecrets(options: SafeStorageSecretsOptions): Promise<SafeStorageSecretStore> {
  const platform = options.platform ?? process.platform;
  let available: boolean;
  try {
    available = await options.safeStorage.isAsyncEncryptionAvailable();
  } catch {
    available = false;
  }
  let backend: string | undefined;
  if (platform === 'linux') {
    try {
      backend = options.safeStorage.getSelectedStorageBackend();
    } catch {
      backend = 'unknown';
    }
  }
  const { entries, warnings } = await loadEntries(options.file, options.now);
  return new SafeStorageSecretStore(options.safeStorage, options.file, entries, { available, backend, warnings });
}

async function loadEntries(
  file: string,
  now?: () => number,
): Promise<{ entries: Map<string, string>; warnings: FileDamagedWarning[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { entries: new Map(), warnings: [] };
    // Unreadable is not corrupt: moving it aside could hide a permissions problem.
    throw new Error(`Could not read the secrets file "${file}" (${code ?? 'error'}). Check its permissions.`, {
      cause: error,
    });
  }
  let data: unknown;
  let notJson = false;
  try {
    data = JSON.parse(text);
  } catch {
    notJson = true; // the parser's message would quote the file
  }
  const parsed = SecretsFileSchema.safeParse(data);
  if (parsed.success) return { entries: new Map(Object.entries(parsed.data.entries)), warnings: [] };
  const warning = setAside(
    file,
    'secrets',
    text.length === 0 ? 'empty' : notJson ? 'not_json' : 'invalid_content',
    now ? { now } : {},
  );
  return { entries: new Map(), warnings: warning ? [warning] : [] };
}

interface StoreState {
  available: boolean;
  backend: string | undefined;
  warnings: FileDamagedWarning[];
}

export class SafeStorageSecretStore implements DescribedSecretStore {
  /** key → base64 ciphertext; replaced only after the file holding the new map is written. */
  #entries: Map<string, string>;
  /** Writes run one after another, so a slow write never lands after a later one. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly safeStorage: SafeStorageApi,
    readonly file: string,
    entries: Map<string, string>,
    private readonly state: StoreState,
  ) {
    this.#entries = entries;
  }

  /** A damaged file found when the store was opened (moved aside), to show once. */
  async damagedFiles(): Promise<readonly FileDamagedWarning[]> {
    return this.state.warnings;
  }

  describe(): SecretBackendInfo {
    if (!this.state.available) return { kind: 'safeStorage', secure: false, warning: WARN_UNAVAILABLE };
    if (this.state.backend === 'basic_text') return { kind: 'safeStorage', secure: false, warning: WARN_BASIC_TEXT };
    if (this.state.backend === 'unknown') return { kind: 'safeStorage', secure: false, warning: WARN_UNKNOWN_BACKEND };
    return { kind: 'safeStorage', secure: true };
  }

  async has(key: string): Promise<boolean> {
    checkKey(key);
    return this.#entries.has(key);
  }

  async get(key: string): Promise<SecretValue | undefined> {
    checkKey(key);
    const stored = this.#entries.get(key);
    if (stored === undefined) return undefined;
    let decrypted: { shouldReEncrypt: boolean; result: string };
    try {
      decrypted = await this.safeStorage.decryptStringAsync(Buffer.from(stored, 'base64'));
    } catch {
      throw new SecretDecryptError(key);
    }
    const value = new SecretValue(decrypted.result);
    // The OS rotated its key: store the value under the new one (best effort; the old still works).
    if (decrypted.shouldReEncrypt) void this.#reEncrypt(key, stored, value).catch(() => undefined);
    return value;
  }

  async #reEncrypt(key: string, old: string, value: SecretValue): Promise<void> {
    const ciphertext = (await this.safeStorage.encryptStringAsync(value.reveal())).toString('base64');
    // Only if nobody replaced or deleted the value in the meantime.
    await this.#update((entries) => {
      if (entries.get(key) === old) entries.set(key, ciphertext);
    });
  }

  async set(key: string, value: SecretValue): Promise<void> {
    checkKey(key);
    if (!this.state.available) throw new SecretStorageUnavailableError();
    const ciphertext = (await this.safeStorage.encryptStringAsync(value.reveal())).toString('base64');
    await this.#update((entries) => entries.set(key, ciphertext));
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    await this.#update((entries) => entries.delete(key));
  }

  #update(change: (entries: Map<string, string>) => void): Promise<void> {
    const run = this.#queue.then(async () => {
      const next = new Map(this.#entries);
      change(next);
      await this.#write(next);
      this.#entries = next;
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #write(entries: Map<string, string>): Promise<void> {
    const body = { version: FILE_VERSION, entries: Object.fromEntries(entries) };
    try {
      ensurePrivateDir(dirname(this.file));
      await writeFileAtomic(this.file, `${JSON.stringify(body, null, 2)}\n`, { encoding: 'utf8', mode: 0o600 });
    } catch (error) {
      throw new Error(
        `Could not save the secrets file "${this.file}" (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
        { cause: error },
      );
    }
  }
}

function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 512)
    throw new TypeError('A secret key must be a non-empty string of at most 512 characters.');
}
