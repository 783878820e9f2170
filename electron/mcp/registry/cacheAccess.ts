/**
 * The registry's use of the schema cache. A removed server's entry is dropped at once, and a
 * read for the same id waits until the drop has finished, so a new server that takes the id
 * never gets the old one's tools (its fingerprint differs too: see fingerprint.ts).
 * What is written holds no known secret value (descriptorRedaction.ts): the file is on disk.
 */
import { connectionFingerprint } from '../fingerprint.js';
import type { ToolSchemaCache } from '../schemaCache.js';
import type { ServerConfig } from '../../../shared/serverConfig.js';
import type { ToolDescriptor, ToolListHints } from '../types.js';
import type { RegistryState } from './state.js';
import { failureOfServer } from './state.js';
import type { ServerEntry } from './types.js';

export class CacheAccess {
  private readonly drops = new Map<string, Promise<void>>();

  constructor(
    private readonly state: RegistryState,
    private readonly cache: ToolSchemaCache | undefined,
  ) {}

  async read(entry: ServerEntry): Promise<ToolDescriptor[] | undefined> {
    if (!this.cache) return undefined;
    await this.drops.get(entry.config.id);
    return this.cache.get(entry.config.id, connectionFingerprint(entry.config));
  }

  /**
   * Writes a live tool list with the server's cache hints (a modern server's `ttlMs` and
   * `cacheScope`); a failure is a warning, never a failed discovery. A `private` list of a server
   * that is reached with credentials is kept in memory only: another sign-in may see another list.
   */
  async write(
    config: ServerConfig,
    fingerprint: string,
    tools: ToolDescriptor[],
    hints?: ToolListHints,
  ): Promise<void> {
    const id = config.id;
    const credentials = config.transport === 'streamable_http' && config.auth.kind !== 'none';
    const persist = !(hints?.cacheScope === 'private' && credentials);
    await this.cache
      ?.set(id, fingerprint, this.state.redaction.tools(tools), {
        ...(hints?.ttlMs !== undefined ? { ttlMs: hints.ttlMs } : {}),
        persist,
      })
      .catch((error: unknown) => {
        this.state.warn(`Could not write the tool cache for "${id}": ${failureOfServer(error).reason}`);
      });
  }

  /** Forgets a removed server's tools (memory at once, the file before the next read of this id). */
  drop(id: string): Promise<void> {
    if (!this.cache) return Promise.resolve();
    const previous = this.drops.get(id) ?? Promise.resolve();
    const dropping = previous
      .then(() => this.cache?.delete(id))
      .catch((error: unknown) =>
        this.state.warn(`Could not remove the tool cache of "${id}": ${failureOfServer(error).reason}`),
      )
      .finally(() => {
        if (this.drops.get(id) === dropping) this.drops.delete(id);
      });
    this.drops.set(id, dropping);
    return dropping;
  }
}
