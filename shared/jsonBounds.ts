/**
 * The cost of an untrusted JSON structure, bounded before anything pays it. Every layer behind a
 * boundary walks a request once or more per key or element — the SDK's schemas (several passes,
 * each copying `_meta` and `arguments`), redaction, hashing, the checkpoint's JSON, the trace —
 * all synchronously, in the one thread that also serves the GUI and every other agent. Measured
 * before this bound: 50,000 `_meta` keys in one request stalled the whole main process for
 * seconds. So a request is counted while it arrives, byte by byte, without parsing it: how deep
 * it nests and how many values (object members plus array elements) it holds. Over either limit
 * it is refused with a sentence that names the limit — and nothing has parsed or walked it.
 *
 * The count is a small state machine over UTF-8 bytes (JSON's structural characters are ASCII,
 * and a byte of a multi-byte character never equals one), fed chunk by chunk as the body
 * arrives, so its cost is spread over the reads and stops at the first limit passed. It does not
 * validate JSON: a malformed body is JSON.parse's to refuse afterwards.
 */
import { MAX_JSON_DEPTH } from './jsonDepth.js';

/**
 * The most values one request may hold (object members and array elements, at any depth): far
 * beyond an MCP message's own fields and ordinary tool arguments, small enough that every pass
 * behind the boundary over all of them together stays within the 50 ms goal of
 * bench/hostileRequests.ts (its largest accepted request: arguments of just under this many keys).
 */
export const MAX_JSON_VALUES = 10_000;

/**
 * The most keys a `_meta` object may have. The protocol's own keys (the 2026-07-28 envelope,
 * progressToken, trace context) and MiniHarness's (`io.miniharness/*`) are about a dozen; the
 * SDK copies and validates `_meta` several times per request, at tens of microseconds per key.
 */
export const MAX_META_KEYS = 64;

export interface JsonBounds {
  maxDepth: number;
  maxValues: number;
}

const DEFAULT_JSON_BOUNDS: JsonBounds = { maxDepth: MAX_JSON_DEPTH, maxValues: MAX_JSON_VALUES };

/** Which limit a structure passed: its nesting, or its number of values. */
export type JsonBoundsBreach = { limit: 'depth'; max: number } | { limit: 'values'; max: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** Plain bytes of a string stepped through before the rest is searched natively. */
const PLAIN_RUN = 64;

/** The index of `byte` in `chunk` from `from`, or the chunk's length when there is none. */
function indexOrEnd(chunk: Uint8Array, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at < 0 ? chunk.length : at;
}

/**
 * Counts a JSON text's depth and values as its bytes arrive (`push` each chunk, in order). Once a
 * limit is passed it says so, and ignores anything pushed after.
 */
export class JsonBoundsCounter {
  private depth = 0;
  private values = 0;
  private inString = false;
  private escaped = false;
  /** Per open container (index = depth): whether its first value has been counted (the rest are counted by commas). */
  private readonly started: Uint8Array;
  private breach: JsonBoundsBreach | undefined;

  constructor(private readonly bounds: JsonBounds = DEFAULT_JSON_BOUNDS) {
    this.started = new Uint8Array(bounds.maxDepth + 2);
  }

  /** Feeds the next bytes; the limit passed so far, if any. */
  push(chunk: Uint8Array): JsonBoundsBreach | undefined {
    if (this.breach) return this.breach;
    const { maxDepth, maxValues } = this.bounds;
    const started = this.started;
    let { depth, values, inString, escaped } = this;
    const length = chunk.length;
    /** Plain bytes in a row inside a string: after PLAIN_RUN of them, the next quote or backslash is found natively. */
    let plain = 0;
    // Where the next quote and backslash are, once searched (each searched again only once passed: linear in all).
    let nextQuote = -1;
    let nextBackslash = -1;
    for (let i = 0; i < length; i++) {
      const byte = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) {
          escaped = true;
          plain = 0;
        } else if (byte === QUOTE) {
          inString = false;
          plain = 0;
        } else if (++plain >= PLAIN_RUN) {
          // A long text: skipped to just before its next quote or backslash (escape-dense text is stepped through).
          plain = 0;
          if (nextQuote < i) nextQuote = indexOrEnd(chunk, QUOTE, i);
          if (nextBackslash < i) nextBackslash = indexOrEnd(chunk, BACKSLASH, i);
          i = Math.min(nextQuote, nextBackslash) - 1;
        }
        continue;
      }
      if (byte === SPACE || byte === LF || byte === CR || byte === TAB || byte === COLON) continue;
      if (byte === COMMA) {
        // The next member or element of the container open at this depth.
        if (depth > 0 && ++values > maxValues) return this.stop({ limit: 'values', max: maxValues });
        continue;
      }
      if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (depth > 0) depth--;
        continue;
      }
      // The start of a value (or of a key, which starts an object's member): the container's first counts here.
      if (depth > 0 && started[depth] === 0) {
        started[depth] = 1;
        if (++values > maxValues) return this.stop({ limit: 'values', max: maxValues });
      }
      if (byte === QUOTE) inString = true;
      else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        if (++depth > maxDepth) return this.stop({ limit: 'depth', max: maxDepth });
        started[depth] = 0;
      }
    }
    this.depth = depth;
    this.values = values;
    this.inString = inString;
    this.escaped = escaped;
    return undefined;
  }

  private stop(breach: JsonBoundsBreach): JsonBoundsBreach {
    this.breach = breach;
    return breach;
  }
}

/** The limit a whole JSON text passes, if any (one pass over its UTF-8 bytes). */
export function jsonTextBreach(
  text: string | Uint8Array,
  bounds: JsonBounds = DEFAULT_JSON_BOUNDS,
): JsonBoundsBreach | undefined {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  return new JsonBoundsCounter(bounds).push(bytes);
}

/**
 * The limit an already-parsed value passes, if any, without recursion; it stops at the first limit
 * passed, so its own cost is bounded by the limits (for values that never were JSON text: a
 * structured clone over IPC).
 */
export function jsonValueBreach(
  value: unknown,
  bounds: JsonBounds = DEFAULT_JSON_BOUNDS,
): JsonBoundsBreach | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let values = 0;
  const visit = (child: unknown, depth: number): boolean => {
    if (++values > bounds.maxValues) return false;
    if (child !== null && typeof child === 'object') stack.push({ value: child, depth });
    return true;
  };
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > bounds.maxDepth) return { limit: 'depth', max: bounds.maxDepth };
    if (Array.isArray(current)) {
      if (values + current.length > bounds.maxValues) return { limit: 'values', max: bounds.maxValues };
      for (const child of current) visit(child, depth + 1);
      continue;
    }
    // Counted key by key (never Object.keys of a million keys first).
    for (const key in current) {
      if (Object.hasOwn(current, key) && !visit((current as Record<string, unknown>)[key], depth + 1))
        return { limit: 'values', max: bounds.maxValues };
    }
  }
  return undefined;
}

/** The sentence for a limit passed, naming it; `what`: "The request", "The body", … */
export function jsonBreachSentence(breach: JsonBoundsBreach, what = 'The request'): string {
  return breach.limit === 'depth'
    ? `${what} nests objects and arrays more than ${breach.max} levels deep.`
    : `${what} holds more than ${breach.max.toLocaleString('en-US')} values (object members and array elements); MiniHarness accepts at most ${breach.max.toLocaleString('en-US')} in one request.`;
}

/** Whether an object has more than `max` own keys, counted only up to max + 1. */
export function hasMoreKeysThan(value: object, max: number): boolean {
  let count = 0;
  for (const key in value) {
    if (Object.hasOwn(value, key) && ++count > max) return true;
  }
  return false;
}
