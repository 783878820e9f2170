/**
 * What the gateway bounds in an agent's request besides its size, before the era is decided and
 * before any layer walks it (the SDK's schemas, the call path): the body is counted while it
 * arrives (shared/jsonBounds.ts: its depth and its number of values, → 400 / 413), then the few
 * fields that are paid for per key or per element once parsed are checked here, each by a count
 * that stops at its limit: the messages of a batch, the keys of each message's `_meta`, and the
 * length of a `requestState` (the gateway's own sealed state is well under a kilobyte; verifying
 * one costs a decode and an HMAC over all of it). Headers are bounded by node:http itself
 * (16 KiB in all, 2,000 at most).
 */
import { MAX_META_KEYS, hasMoreKeysThan } from '../../shared/jsonBounds.js';

/** The most JSON-RPC messages in one batch (2025-03-26 allowed batches; later revisions send one message per request). */
export const MAX_BATCH_MESSAGES = 32;
/** The longest `requestState` an agent may send back. */
export const MAX_REQUEST_STATE_CHARS = 8_192;

/** Why a parsed body is refused (400), in a sentence naming the limit; undefined when it is within every bound. */
export function requestBoundsRefusal(body: unknown): string | undefined {
  if (Array.isArray(body) && body.length > MAX_BATCH_MESSAGES)
    return `Invalid request: a batch may hold at most ${MAX_BATCH_MESSAGES} messages; send the rest in further requests.`;
  for (const message of Array.isArray(body) ? body : [body]) {
    if (message === null || typeof message !== 'object') continue;
    const { params, result } = message as { params?: unknown; result?: unknown };
    for (const part of [params, result]) {
      if (part === null || typeof part !== 'object') continue;
      const { _meta: meta, requestState } = part as { _meta?: unknown; requestState?: unknown };
      if (meta !== null && typeof meta === 'object' && hasMoreKeysThan(meta, MAX_META_KEYS))
        return `Invalid request: _meta may hold at most ${MAX_META_KEYS} keys.`;
      if (typeof requestState === 'string' && requestState.length > MAX_REQUEST_STATE_CHARS)
        return `Invalid request: requestState may be at most ${MAX_REQUEST_STATE_CHARS} characters; send back the requestState MiniHarness gave, unchanged.`;
    }
  }
  return undefined;
}
