/**
 * `ToolSchemaCache`: the last tool list of each server, in memory and as one JSON file per
 * server, so a warm start shows tools without a `tools/list`. Entries are keyed by server id and
 * the fingerprint of the server's connection settings (an edited server is never served its old
 * tools) and expire after a TTL — or sooner, when a modern server's list said how long it is
 * fresh (`ttlMs`). It caches tool *descriptions* only — never results — and says nothing about a
 * server's health. A list the server scoped `private` to a signed-in caller stays in memory.
 *
 * Files are written atomically (write to a temp file, then rename), 0600 in a 0700 folder. A
 * damaged or foreign file is treated as a miss, moved aside (electron/storage/damagedFile.ts) and
 * reported through `onDamaged`; the next write starts a fresh one.
 */
import { ToolSchema } from '@modelcontextprotocol/core';
import { z } from 'zod';
import type { FileDamagedWarning } from '../../shared/contract/warnings.js';
import { setAside } from '../storage/damagedFile.js';
import { PerServerFiles } from '../storage/perServerFiles.js';
import type { ToolDescriptor } from './types.js';

const CACHE_FORMAT = 1;

const CacheFileSchema = z.object({
  format: z.literal(CACHE_FORMAT),
  serverId: z.string(),
  fingerprint: z.string(),
  fetchedAt: z.number(),
  /** The server's own freshness (`ttlMs` of a modern tools/list), when it gave one. */
  expiresAt: z.number().optional(),
  tools: z.array(ToolSchema),
});
type CacheEntry = z.infer<typeof CacheFileSchema>;

export interface ToolSchemaCacheOptions {
  /** Folder for the JSON files; memory only when absent. */
  dir?: string;
  ttlMs?: number;
  now?: () => number;
  onWarning?: (message: string) => void;
  /** A damaged cache file was moved aside (the tools are fetched from the server again). */
  onDamaged?: (warning: FileDamagedWarning) => void;
}

export class ToolSchemaCache {
  private readonly files: PerServerFiles<CacheEntry>;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ToolSchemaCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
    this.now = options.now ?? Date.now;
    this.files = new PerServerFiles({
      dir: options.dir,
      suffix: '.tools.json',
      schema: CacheFileSchema,
      onUnreadable: (serverId, error) =>
        this.options.onWarning?.(`tool cache for "${serverId}" is unreadable (${error.message}); refetching`),
      // A damaged cache file is moved aside and reported; the tools are fetched again.
      onInvalid: (_serverId, file, problem) => {
        const warning = setAside(file, 'tool_cache', problem, { now: this.now });
        if (warning) this.options.onDamaged?.(warning);
      },
    });
  }

  /** The cached tools of a server, or undefined on a miss (absent, other fingerprint, expired, corrupt). */
  async get(serverId: string, fingerprint: string): Promise<ToolDescriptor[] | undefined> {
    const entry = await this.files.get(serverId);
    if (!entry) return undefined;
    if (entry.fingerprint !== fingerprint) return undefined;
    if (this.now() - entry.fetchedAt > this.ttlMs) return undefined;
    if (entry.expiresAt !== undefined && this.now() >= entry.expiresAt) return undefined;
    return entry.tools;
  }

  /**
   * Keeps a server's tool list. `ttlMs`: the server's own freshness (a modern server's hint; 0 or
   * less is stale at once, so the next start lists live). `persist: false`: memory only.
   */
  async set(
    serverId: string,
    fingerprint: string,
    tools: ToolDescriptor[],
    hints: { ttlMs?: number; persist?: boolean } = {},
  ): Promise<void> {
    const fetchedAt = this.now();
    const entry: CacheEntry = {
      format: CACHE_FORMAT,
      serverId,
      fingerprint,
      fetchedAt,
      ...(hints.ttlMs !== undefined ? { expiresAt: fetchedAt + Math.max(0, hints.ttlMs) } : {}),
      tools,
    };
    await this.files.set(serverId, entry, hints.persist !== false);
  }

  async delete(serverId: string): Promise<void> {
    await this.files.delete(serverId);
  }

  /** Drops the in-memory copies (the files stay): what a restart of the app looks like. */
  clearMemory(): void {
    this.files.clearMemory();
  }
}
