/**
 * `ToolSchemaCache`: the last tool list of each server, in memory and as one JSON file per
 * server, so a warm start shows tools without a `tools/list`. Entries are keyed by server id and
 * the fingerprint of the server's connection settings (an edited server is never served its old
 * tools) and expire after a TTL. It caches tool *descriptions* only — never results — and says
 * nothing about a server's health.
 *
 * Files are written atomically (write to a temp file, then rename); a corrupt or foreign file is
 * treated as a miss, reported through `onWarning`, and replaced at the next write.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { ToolDescriptor } from './types.js';

const CACHE_FORMAT = 1;

const CacheFileSchema = z.object({
  format: z.literal(CACHE_FORMAT),
  serverId: z.string(),
  fingerprint: z.string(),
  fetchedAt: z.number(),
  tools: z.array(ToolSchema),
});
type CacheEntry = z.infer<typeof CacheFileSchema>;

export interface ToolSchemaCacheOptions {
  /** Folder for the JSON files; memory only when absent. */
  dir?: string;
  ttlMs?: number;
  now?: () => number;
  onWarning?: (message: string) => void;
}

export class ToolSchemaCache {
  private readonly memory = new Map<string, CacheEntry>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ToolSchemaCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
    this.now = options.now ?? Date.now;
  }

  /** The cached tools of a server, or undefined on a miss (absent, other fingerprint, expired, corrupt). */
  async get(serverId: string, fingerprint: string): Promise<ToolDescriptor[] | undefined> {
    const entry = this.memory.get(serverId) ?? (await this.readFile(serverId));
    if (!entry) return undefined;
    this.memory.set(serverId, entry);
    if (entry.fingerprint !== fingerprint) return undefined;
    if (this.now() - entry.fetchedAt > this.ttlMs) return undefined;
    return entry.tools;
  }

  async set(serverId: string, fingerprint: string, tools: ToolDescriptor[]): Promise<void> {
    const entry: CacheEntry = { format: CACHE_FORMAT, serverId, fingerprint, fetchedAt: this.now(), tools };
    this.memory.set(serverId, entry);
    if (!this.options.dir) return;
    await mkdir(this.options.dir, { recursive: true });
    await writeFileAtomic(this.fileOf(serverId), JSON.stringify(entry), { mode: 0o600 });
  }

  async delete(serverId: string): Promise<void> {
    this.memory.delete(serverId);
    if (this.options.dir) await rm(this.fileOf(serverId), { force: true });
  }

  /** Drops the in-memory copies (the files stay): what a restart of the app looks like. */
  clearMemory(): void {
    this.memory.clear();
  }

  private fileOf(serverId: string): string {
    if (!this.options.dir) throw new Error('no cache folder');
    // Server ids are validated to [a-z0-9_-], so they are safe file names.
    return join(this.options.dir, `${serverId}.tools.json`);
  }

  private async readFile(serverId: string): Promise<CacheEntry | undefined> {
    if (!this.options.dir) return undefined;
    let text: string;
    try {
      text = await readFile(this.fileOf(serverId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.warn(`tool cache for "${serverId}" is unreadable (${(error as Error).message}); refetching`);
      return undefined;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.warn(`tool cache for "${serverId}" is corrupt (not JSON); it will be rewritten`);
      return undefined;
    }
    const parsed = CacheFileSchema.safeParse(json);
    if (!parsed.success || parsed.data.serverId !== serverId) {
      this.warn(`tool cache for "${serverId}" has an unexpected shape; it will be rewritten`);
      return undefined;
    }
    return parsed.data;
  }

  private warn(message: string): void {
    this.options.onWarning?.(message);
  }
}
