/**
 * Follows a list's cursors (resources, resource templates, prompts) and keeps what fits the
 * app's bounds (shared/limits.ts): past MAX_LISTED_ITEMS items or MAX_LISTED_BYTES of JSON the
 * list stops and says it was cut. A cursor the server repeats is a protocol error, not a loop.
 * Pages are asked for one at a time (`sdk.request` with the list method): the v2 SDK's `list*()`
 * without a cursor walks every page itself, past these bounds.
 */
import { MAX_LISTED_BYTES, MAX_LISTED_ITEMS, jsonByteLength } from '../../../shared/limits.js';
import { MCPProtocolError } from '../errors.js';

/** A list as the app keeps it: the items, and whether the server had more than the bounds allow. */
export interface Listed<T> {
  items: T[];
  truncated: boolean;
}

export interface ListBounds {
  maxItems: number;
  maxBytes: number;
}

const DEFAULT_LIST_BOUNDS: ListBounds = { maxItems: MAX_LISTED_ITEMS, maxBytes: MAX_LISTED_BYTES };

export type PageFetcher<T> = (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>;

export async function collectPages<T>(
  serverId: string,
  method: string,
  fetchPage: PageFetcher<T>,
  bounds: ListBounds = DEFAULT_LIST_BOUNDS,
): Promise<Listed<T>> {
  const items: T[] = [];
  let bytes = 0;
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    for (const item of page.items) {
      const size = jsonByteLength(item);
      if (items.length >= bounds.maxItems || bytes + size > bounds.maxBytes) return { items, truncated: true };
      items.push(item);
      bytes += size;
    }
    // An empty cursor is read as the end (some servers send "" instead of leaving it out).
    cursor = page.nextCursor || undefined;
    if (cursor !== undefined) {
      if (items.length >= bounds.maxItems) return { items, truncated: true }; // full: the next page is not asked for
      if (seen.has(cursor))
        throw new MCPProtocolError(serverId, `${method} repeated the cursor ${JSON.stringify(cursor.slice(0, 100))}`);
      seen.add(cursor);
    }
  } while (cursor !== undefined);
  return { items, truncated: false };
}
