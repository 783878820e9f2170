/**
 * Secrets in a JSON file readable only by the user (0600), written atomically. The fallback of
 * browser mode when no OS keyring answers: not encrypted at rest, so the GUI warns about it.
 * A corrupt file is moved aside (never silently overwritten) and reported.
 */
import { chmod, readFile, rename } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { DescribedSecretStore, SecretBackendInfo } from '../app/types.js';
import { SecretValue } from './secretValue.js';

const FileSchema = z.object({ format: z.literal(1), secrets: z.record(z.string(), z.string()) });

export class FileSecretStore implements DescribedSecretStore {
  private cache: Map<string, string> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Set when the file was unreadable and moved aside. */
  corruption: string | undefined;

  constructor(
    readonly path: string,
    private readonly reason = 'No OS keyring is available',
  ) {}

  describe(): SecretBackendInfo {
    return {
      kind: 'file',
      secure: false,
      warning: `${this.reason}: secrets are stored unencrypted in a file only your user can read (${this.path}). Prefer environment variable references for valuable tokens.`,
    };
  }

  async get(key: string): Promise<SecretValue | undefined> {
    const value = (await this.load()).get(key);
    return value === undefined ? undefined : new SecretValue(value);
  }

  async has(key: string): Promise<boolean> {
    return (await this.load()).has(key);
  }

  set(key: string, value: SecretValue): Promise<void> {
    return this.mutate((map) => map.set(key, value.reveal()));
  }

  delete(key: string): Promise<void> {
    return this.mutate((map) => map.delete(key));
  }

  /** Writes run one after another so two quick changes cannot lose each other. */
  private mutate(change: (map: Map<string, string>) => void): Promise<void> {
    const run = this.queue.then(async () => {
      const map = new Map(await this.load());
      change(map);
      await writeFileAtomic(this.path, JSON.stringify({ format: 1, secrets: Object.fromEntries(map) }), { mode: 0o600 });
      await chmod(this.path, 0o600);
      this.cache = map;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async load(): Promise<Map<string, string>> {
    if (this.cache) return this.cache;
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return (this.cache = new Map());
      throw error;
    }
    try {
      this.cache = new Map(Object.entries(FileSchema.parse(JSON.parse(text)).secrets));
    } catch {
      const aside = `${this.path}.corrupt-${Date.now()}`;
      await rename(this.path, aside);
      this.corruption = `The secret file was unreadable and was moved to ${aside}; enter the secrets again.`;
      this.cache = new Map();
    }
    return this.cache;
  }
}
