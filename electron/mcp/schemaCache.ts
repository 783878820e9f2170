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
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolSchema } from '@modelcontextprotocol/core';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import type { FileDamagedWarning } from '../../shared/contract.js';
import type { DamageProblem } from '../storage/damagedFile.js';
import { jsonProblem, setAside } from '../storage/damagedFile.js';
import { PRIVATE_FILE_MODE, ensurePrivateDir } from '../storage/privateFiles.js';
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
    if (entry.expiresAt !== undefined && this.now() >= entry.expiresAt) return undefined;
    return entry.tools;
  }

  /**
   * Keeps a server's tool list. `ttlMs`: the server's own freshness (a modern server's hint; 0 or
   * less is stale at once, so the next start lists live). `persist: false`: memory only.
   */
  async set(serverId: string, fingerprint: string, tools: ToolDescriptor[], hints: { ttlMs?: number; persist?: boolean } = {}): Promise<void> {
    const fetchedAt = this.now();
    const entry: CacheEntry = { format: CACHE_FORMAT, serverId, fingerprint, fetchedAt, ...(hints.ttlMs !== undefined ? { expiresAt: fetchedAt + Math.max(0, hints.ttlMs) } : {}), tools };
    this.memory.set(serverId, entry);
    if (!this.options.dir) return;
    if (hints.persist === false) {
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
    const json = jsonProblem(text);
    if ('problem' in json) return this.setAside(serverId, json.problem);
    const parsed = CacheFileSchema.safeParse(json.value);
    if (!parsed.success || parsed.data.serverId !== serverId) return this.setAside(serverId, 'invalid_content');
    return parsed.data;
  }

  private setAside(serverId: string, problem: DamageProblem): undefined {
    const warning = setAside(this.fileOf(serverId), 'tool_cache', problem, { now: this.now });
    if (warning) this.options.onDamaged?.(warning);
    return undefined;
  }

  private warn(message: string): void {
    this.options.onWarning?.(message);
  }
}
