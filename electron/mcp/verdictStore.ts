/**
 * `VerdictStore`: the protocol era each server was last negotiated at, dated, in memory and as
 * one JSON file per server beside the schema cache, so a warm start connects with it as the SDK's
 * `prior` and skips the `server/discover` probe.
 *
 * A verdict is keyed by server id and the connection fingerprint (an edited server is probed
 * again) and is given out only within its horizon: the SDK's gateway guide warns that a kept
 * legacy verdict "succeeds silently forever" against a server upgraded since, so legacy verdicts
 * expire sooner than modern ones (a stale modern verdict fails loudly at its first request, and
 * the client then drops it and probes). The client drops a verdict that failed (`delete`).
 *
 * Files are written atomically, 0600 in a 0700 folder; a damaged or foreign file is a miss (the
 * server is simply probed), removed quietly — it holds nothing a person needs to know about.
 */
import { rm } from 'node:fs/promises';
import type { DiscoverResult, PriorDiscovery } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { PerServerFiles } from '../storage/perServerFiles.js';

const VERDICT_FORMAT = 1;

/** How long a kept legacy verdict is trusted: a server may have been upgraded since. */
export const LEGACY_VERDICT_HORIZON_MS = 24 * 60 * 60 * 1000;
/** How long a kept modern verdict is trusted (a stale one fails loudly and is re-probed). */
const MODERN_VERDICT_HORIZON_MS = 7 * 24 * 60 * 60 * 1000;

const VerdictFileSchema = z.object({
  format: z.literal(VERDICT_FORMAT),
  serverId: z.string(),
  fingerprint: z.string(),
  decidedAt: z.number(),
  verdict: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('legacy') }),
    // The discover result as the server sent it; the SDK validates it again when it is used.
    z.object({
      kind: z.literal('modern'),
      discover: z.looseObject({ supportedVersions: z.array(z.string()), capabilities: z.looseObject({}) }),
    }),
  ]),
});
type VerdictEntry = z.infer<typeof VerdictFileSchema>;
type KeptDiscover = Extract<VerdictEntry['verdict'], { kind: 'modern' }>['discover'];

export interface VerdictStoreOptions {
  /** Folder for the JSON files (the schema cache's); memory only when absent. */
  dir?: string;
  legacyHorizonMs?: number;
  modernHorizonMs?: number;
  now?: () => number;
}

export interface KeptVerdict {
  verdict: PriorDiscovery;
  /** When it was negotiated (epoch ms). */
  decidedAt: number;
}

export class VerdictStore {
  private readonly files: PerServerFiles<VerdictEntry>;
  private readonly now: () => number;

  constructor(private readonly options: VerdictStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    // A damaged or foreign verdict file holds nothing a person needs: removed quietly, the server probed.
    this.files = new PerServerFiles({
      dir: options.dir,
      suffix: '.verdict.json',
      schema: VerdictFileSchema,
      onInvalid: (_serverId, file) => rm(file, { force: true }).catch(() => undefined),
    });
  }

  /** The kept verdict of a server, or undefined (none, another fingerprint, past its horizon, unreadable). */
  async get(serverId: string, fingerprint: string): Promise<KeptVerdict | undefined> {
    const entry = await this.files.get(serverId);
    if (!entry) return undefined;
    if (entry.fingerprint !== fingerprint) return undefined;
    const horizon =
      entry.verdict.kind === 'legacy'
        ? (this.options.legacyHorizonMs ?? LEGACY_VERDICT_HORIZON_MS)
        : (this.options.modernHorizonMs ?? MODERN_VERDICT_HORIZON_MS);
    if (this.now() - entry.decidedAt > horizon) return undefined;
    const verdict: PriorDiscovery =
      entry.verdict.kind === 'legacy'
        ? { kind: 'legacy' }
        : { kind: 'modern', discover: entry.verdict.discover as DiscoverResult };
    return { verdict, decidedAt: entry.decidedAt };
  }

  async set(serverId: string, fingerprint: string, verdict: PriorDiscovery): Promise<void> {
    await this.files.set(serverId, {
      format: VERDICT_FORMAT,
      serverId,
      fingerprint,
      decidedAt: this.now(),
      verdict:
        verdict.kind === 'legacy' ? { kind: 'legacy' } : { kind: 'modern', discover: verdict.discover as KeptDiscover },
    });
  }

  async delete(serverId: string): Promise<void> {
    await this.files.delete(serverId);
  }

  /** Drops the in-memory copies (the files stay): what a restart of the app looks like. */
  clearMemory(): void {
    this.files.clearMemory();
  }
}
