/**
 * Redaction for anything stored or shown: trace event data, error messages, checkpoint args.
 * The functions here are pure; the app's one set of known secret values, and these functions
 * bound to it, is `SecretRedactor` (secretRedactor.ts).
 *
 * Two rules: a value under a key that names a credential becomes '[redacted]' (whatever it
 * is — a string, an object, an array), and every occurrence of a known secret value inside
 * any string (or key) is replaced. The output is a JSON-only copy (the input is untouched):
 * toJSON is honoured (a SecretValue becomes '[redacted]'), cycles become '[circular]',
 * bigints become strings, and functions/undefined are dropped as JSON.stringify drops them.
 *
 * Limits: a secret that is neither under such a key nor registered (e.g. a token pasted into
 * free text) is not found; a header kept as a ['Authorization', '…'] pair is not a key.
 */

export const REDACTED = '[redacted]';

const SENSITIVE_KEY = /token|secret|password|passwd|authorization|api[-_]?key|cookie|credential|private[-_]?key/i;

/** Counters that merely contain "token" (model usage figures), which are no secret. */
const TOKEN_COUNT_KEY =
  /^(max|input|output|total|prompt|completion|cached|reasoning)[-_]?tokens?$|^tokens?[-_]?(count|used|limit)$|^num[-_]?tokens$/i;

/** Keys already judged (the same few keys recur in every trace event and call): two regex tests per key once, not per value. */
const judgedKeys = new Map<string, boolean>();
/** Keys come from anyone's data: the memo is emptied when it reaches this size, so it stays bounded. */
const MAX_JUDGED_KEYS = 4096;

function isSensitiveKey(key: string): boolean {
  let sensitive = judgedKeys.get(key);
  if (sensitive === undefined) {
    sensitive = SENSITIVE_KEY.test(key) && !TOKEN_COUNT_KEY.test(key);
    if (judgedKeys.size >= MAX_JUDGED_KEYS) judgedKeys.clear();
    judgedKeys.set(key, sensitive);
  }
  return sensitive;
}

/** Shorter values are not treated as secrets: replacing "a" everywhere would shred the text. */
const MIN_SECRET_LENGTH = 4;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export function redact(value: unknown, knownSecrets: Iterable<string> = []): JsonValue {
  return redactReporting(value, knownSecrets).value;
}

/**
 * As `redact`, and says whether the copy differs from the input as JSON: `changed` is false when
 * nothing was redacted, dropped or converted, so the input's own JSON is also the copy's.
 */
export function redactReporting(
  value: unknown,
  knownSecrets: Iterable<string> = [],
): { value: JsonValue; changed: boolean } {
  const walker: Walker = { secrets: prepareSecrets(knownSecrets), ancestors: new Set(), changed: false };
  const out = walk(value, walker);
  if (out === undefined) walker.changed = true;
  return { value: out === undefined ? null : out, changed: walker.changed };
}

/** Replaces every known secret inside `text`. */
export function redactString(text: string, knownSecrets: Iterable<string> = []): string {
  return replaceSecrets(text, prepareSecrets(knownSecrets));
}

/** Known secret values, longest first, and a number that grows when one is added (see KnownSecrets). */
export interface SecretSet {
  readonly prepared: readonly string[];
  readonly version: number;
}

/**
 * Known secret values kept ready for redaction (filtered and sorted once per addition, not per
 * call): for a caller that redacts several times per tool call, as the tracer does.
 */
export class KnownSecrets implements Iterable<string>, SecretSet {
  readonly #values = new Set<string>();
  #prepared: readonly string[] = [];

  add(value: string): void {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || this.#values.has(value)) return;
    this.#values.add(value);
    this.#prepared = sortSecrets(this.#values);
  }

  /** Grows with each value added: text redacted at one version may need redacting again at a later one. */
  get version(): number {
    return this.#values.size;
  }

  get prepared(): readonly string[] {
    return this.#prepared;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.#values[Symbol.iterator]();
  }
}

function prepareSecrets(knownSecrets: Iterable<string>): readonly string[] {
  return knownSecrets instanceof KnownSecrets ? knownSecrets.prepared : sortSecrets(knownSecrets);
}

/**
 * Sets an own property of a fresh plain object. A "__proto__" key must stay a key, not set the
 * copy's prototype: defined, not assigned — only for that key, as defineProperty costs several
 * times an assignment and runs for every key of every redacted value.
 */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

function sortSecrets(knownSecrets: Iterable<string>): string[] {
  // No known secret (a caller passing a fresh empty list per line, e.g. a server's log): nothing to sort.
  if (Array.isArray(knownSecrets) && knownSecrets.length === 0) return [];
  // Longest first, so a secret that contains another is replaced whole.
  return [...new Set(knownSecrets)].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** Every occurrence of each of `secrets` (prepared: longest first) in `text` replaced by REDACTED. */
export function replaceSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

interface Walker {
  secrets: readonly string[];
  ancestors: Set<object>;
  /** Something was replaced, dropped or converted on the way. */
  changed: boolean;
}

function walk(value: unknown, walker: Walker): JsonValue | undefined {
  const { secrets, ancestors } = walker;
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    walker.changed = true;
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string': {
      const out = replaceSecrets(value, secrets);
      if (out !== value) walker.changed = true;
      return out;
    }
    case 'number':
      if (Number.isFinite(value)) return value;
      walker.changed = true;
      return null;
    case 'boolean':
      return value;
    case 'bigint':
      walker.changed = true;
      return replaceSecrets(value.toString(), secrets);
    case 'undefined':
    case 'function':
    case 'symbol':
      walker.changed = true;
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.has(object)) {
    walker.changed = true;
    return '[circular]';
  }
  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      return object.map((item) => {
        const out = walk(item, walker);
        if (out !== undefined) return out;
        walker.changed = true;
        return null;
      });
    }
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(object)) {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
        walker.changed = true;
        continue;
      }
      const redactedKey = replaceSecrets(key, secrets);
      const sensitive = isSensitiveKey(key);
      if (redactedKey !== key || sensitive) walker.changed = true;
      const redactedItem = sensitive ? REDACTED : (walk(item, walker) ?? null);
      setOwn(out, redactedKey, redactedItem);
    }
    return out;
  } finally {
    ancestors.delete(object);
  }
}

/**
 * Replaces known secret values inside every string (and key) of plain data — a tool's result,
 * an event payload — and nothing else: unlike `redact`, keys that merely name a credential are
 * kept, because a result's `token` field is the tool's own output, not a secret of the app's.
 * Returns the input itself when no secret occurs (the common case allocates nothing), else a
 * copy of the same shape. Non-plain objects (a Date, a class instance) are returned as they are.
 */
export function redactKnownSecrets<T>(value: T, knownSecrets: Iterable<string>): T {
  const secrets = prepareSecrets(knownSecrets);
  return secrets.length === 0 ? value : (replaceDeep(value, secrets, new Set()) as T);
}

function replaceDeep(value: unknown, secrets: readonly string[], ancestors: Set<object>): unknown {
  if (typeof value === 'string') return replaceSecrets(value, secrets);
  if (value === null || typeof value !== 'object' || ancestors.has(value)) return value;
  const isArray = Array.isArray(value);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!isArray && proto !== Object.prototype && proto !== null) return value;
  ancestors.add(value);
  try {
    if (isArray) {
      let copy: unknown[] | undefined;
      (value as unknown[]).forEach((item, i) => {
        const next = replaceDeep(item, secrets, ancestors);
        if (next !== item) (copy ??= [...(value as unknown[])])[i] = next;
      });
      return copy ?? value;
    }
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const nextKey = replaceSecrets(key, secrets);
      const nextItem = replaceDeep(item, secrets, ancestors);
      if (nextKey !== key || nextItem !== item) changed = true;
      return [nextKey, nextItem] as const;
    });
    if (!changed) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of entries) setOwn(out, key, item);
    return out;
  } finally {
    ancestors.delete(value);
  }
}
