/**
 * Secrets in a JSON file readable only by the user (0600, in a 0700 folder), written atomically.
 * The fallback of browser mode when no OS keyring answers: not encrypted at rest, so the GUI
 * warns about it. A damaged file is moved aside (never silently overwritten) and reported as a
 * `file_damaged` warning.
 *
 * The file is read once, by one load that every caller shares: concurrent first calls never
 * read it twice, so two of them can never race to move a damaged file aside.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { FileDamagedWarning } from '../../shared/contract/warnings.js';
import type { DescribedSecretStore, SecretBackendInfo } from './types.js';
import { jsonProblem, setAside } from '../storage/damagedFile.js';
import { PRIVATE_FILE_MODE, ensurePrivateDir, makePrivate } from '../storage/privateFiles.js';
import { SecretValue } from './secretValue.js';

const FileSchema = z.object({ format: z.literal(1), secrets: z.record(z.string(), z.string()) });

export class FileSecretStore implements DescribedSecretStore {
  /** The one load of the file; every reader awaits it. Reset only if the read itself failed. */
  private loading: Promise<Map<string, string>> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly damaged: FileDamagedWarning[] = [];

  constructor(
    readonly path: string,
    private readonly reason = 'No OS keyring is available',
    private readonly now: () => number = Date.now,
  ) {}

  describe(): SecretBackendInfo {
    return {
      kind: 'file',
      secure: false,
      warning: `${this.reason}: secrets are stored unencrypted in a file only your user can read (${this.path}). Prefer environment variable references for valuable tokens.`,
    };
  }

  async damagedFiles(): Promise<readonly FileDamagedWarning[]> {
    await this.load();
    return [...this.damaged];
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
      const current = await this.load();
      const map = new Map(current);
      change(map);
      ensurePrivateDir(dirname(this.path));
      await writeFileAtomic(this.path, JSON.stringify({ format: 1, secrets: Object.fromEntries(map) }), {
        mode: PRIVATE_FILE_MODE,
      });
      makePrivate(this.path);
      this.loading = Promise.resolve(map);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private load(): Promise<Map<string, string>> {
    this.loading ??= this.read().catch((error: unknown) => {
      this.loading = undefined; // an unreadable file may become readable (permissions fixed)
      throw error;
    });
    return this.loading;
  }

  private async read(): Promise<Map<string, string>> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return new Map();
      // Unreadable is not damaged: moving it aside could hide a permissions problem.
      throw new Error(`Could not read the secrets file "${this.path}" (${code ?? 'error'}). Check its permissions.`, {
        cause: error,
      });
    }
    makePrivate(this.path);
    const parsed = jsonProblem(text);
    const checked = 'value' in parsed ? FileSchema.safeParse(parsed.value) : undefined;
    if (checked?.success) return new Map(Object.entries(checked.data.secrets));
    const warning = setAside(this.path, 'secrets', 'problem' in parsed ? parsed.problem : 'invalid_content', {
      now: this.now,
    });
    if (warning) this.damaged.push(warning);
    return new Map();
  }
}
