/**
 * The catalog's answers kept on disk, one file per registry and search, written atomically
 * (write-file-atomic: a crash leaves the old file or the new one, never half of one), so the
 * catalog can be browsed offline and says how old what it shows is. A file that does not read
 * back is treated as absent (the next answer replaces it).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { ServerResponseSchema } from '../../shared/registryServer.js';
import { PRIVATE_FILE_MODE, ensurePrivateDir } from '../storage/privateFiles.js';
import type { EntryResult } from './registryClient.js';

const CachedSchema = z.object({
  registry: z.string(),
  search: z.string(),
  fetchedAt: z.number(),
  truncated: z.boolean(),
  entries: z.array(
    z.union([
      z.object({ ok: z.literal(true), response: ServerResponseSchema }),
      z.object({ ok: z.literal(false), index: z.number(), name: z.string().optional(), problem: z.string() }),
    ]),
  ),
});
export type CachedListing = z.infer<typeof CachedSchema> & { entries: EntryResult[] };

export class CatalogCache {
  constructor(private readonly dir: string) {}

  private fileOf(registry: string, search: string): string {
    const hash = createHash('sha256').update(`${registry}\n${search}`).digest('hex').slice(0, 32);
    return join(this.dir, `${hash}.json`);
  }

  read(registry: string, search: string): CachedListing | undefined {
    try {
      const parsed = CachedSchema.safeParse(JSON.parse(readFileSync(this.fileOf(registry, search), 'utf8')));
      if (!parsed.success || parsed.data.registry !== registry || parsed.data.search !== search) return undefined;
      return parsed.data as CachedListing;
    } catch {
      return undefined;
    }
  }

  write(listing: CachedListing): void {
    ensurePrivateDir(this.dir);
    writeFileAtomic.sync(this.fileOf(listing.registry, listing.search), JSON.stringify(listing), {
      mode: PRIVATE_FILE_MODE,
    });
  }
}
