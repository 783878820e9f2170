/**
 * One small JSON record per MCP server, in memory and as a file `<dir>/<serverId><suffix>` — the
 * layout the tool-list cache and the kept protocol verdicts share. Files are written atomically
 * (a temp file, then rename), 0600 in a 0700 folder; without a folder the records live in memory
 * only. A file that cannot be read is a miss; one that does not parse, or names another server,
 * goes to `onInvalid`, which decides what becomes of it (set aside and reported, or removed).
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { z } from 'zod';
import type { DamageProblem } from './damagedFile.js';
import { jsonProblem } from './damagedFile.js';
import { PRIVATE_FILE_MODE, ensurePrivateDir } from './privateFiles.js';

export interface PerServerFilesOptions<T> {
  /** The folder; memory only when absent. */
  dir: string | undefined;
  /** The file name after the server id, e.g. `.tools.json`. */
  suffix: string;
  schema: z.ZodType<T>;
  /** A file there that could not be read (other than "not found"). */
  onUnreadable?: (serverId: string, error: Error) => void;
  /** A file that is not a record of this server: `file` is its path. */
  onInvalid: (serverId: string, file: string, problem: DamageProblem) => Promise<void> | void;
}

export class PerServerFiles<T extends { serverId: string }> {
  private readonly memory = new Map<string, T>();

  constructor(private readonly options: PerServerFilesOptions<T>) {}

  /** The record of a server: the one in memory, else the file's (then kept in memory). */
  async get(serverId: string): Promise<T | undefined> {
    const entry = this.memory.get(serverId) ?? (await this.read(serverId));
    if (entry) this.memory.set(serverId, entry);
    return entry;
  }

  /** Keeps a record; `persist: false` keeps it in memory only and removes the server's file. */
  async set(serverId: string, entry: T, persist = true): Promise<void> {
    this.memory.set(serverId, entry);
    if (!this.options.dir) return;
    if (!persist) {
      await rm(this.fileOf(serverId), { force: true });
      return;
    }
    ensurePrivateDir(this.options.dir);
    await writeFileAtomic(this.fileOf(serverId), JSON.stringify(entry), { mode: PRIVATE_FILE_MODE });
  }

  async delete(serverId: string): Promise<void> {
    this.memory.delete(serverId);
    if (this.options.dir) await rm(this.fileOf(serverId), { force: true });
  }

  /** Drops the in-memory copies (the files stay): what a restart of the app looks like. */
  clearMemory(): void {
    this.memory.clear();
  }

  fileOf(serverId: string): string {
    if (!this.options.dir) throw new Error('no folder for per-server files');
    // Server ids are validated to [a-z0-9_-], so they are safe file names.
    return join(this.options.dir, `${serverId}${this.options.suffix}`);
  }

  private async read(serverId: string): Promise<T | undefined> {
    if (!this.options.dir) return undefined;
    let text: string;
    try {
      text = await readFile(this.fileOf(serverId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.options.onUnreadable?.(serverId, error as Error);
      return undefined;
    }
    const json = jsonProblem(text);
    if ('problem' in json) {
      await this.options.onInvalid(serverId, this.fileOf(serverId), json.problem);
      return undefined;
    }
    const parsed = this.options.schema.safeParse(json.value);
    if (!parsed.success || parsed.data.serverId !== serverId) {
      await this.options.onInvalid(serverId, this.fileOf(serverId), 'invalid_content');
      return undefined;
    }
    return parsed.data;
  }
}
