/**
 * Redaction for anything stored or shown: trace event data, error messages, checkpoint args.
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

export const SENSITIVE_KEY = /token|secret|password|passwd|authorization|api[-_]?key|cookie|credential|private[-_]?key/i;

/** Counters that merely contain "token" (model usage figures), which are no secret. */
const TOKEN_COUNT_KEY = /^(max|input|output|total|prompt|completion|cached|reasoning)[-_]?tokens?$|^tokens?[-_]?(count|used|limit)$|^num[-_]?tokens$/i;

export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key) && !TOKEN_COUNT_KEY.test(key);
}

/** Shorter values are not treated as secrets: replacing "a" everywhere would shred the text. */
export const MIN_SECRET_LENGTH = 4;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export function redact(value: unknown, knownSecrets: Iterable<string> = []): JsonValue {
  const secrets = prepareSecrets(knownSecrets);
  const out = walk(value, secrets, new Set());
  return out === undefined ? null : out;
}

/** Replaces every known secret inside `text`. */
export function redactString(text: string, knownSecrets: Iterable<string> = []): string {
  return replaceSecrets(text, prepareSecrets(knownSecrets));
}

function prepareSecrets(knownSecrets: Iterable<string>): string[] {
  // Longest first, so a secret that contains another is replaced whole.
  return [...new Set(knownSecrets)].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

function replaceSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

function walk(value: unknown, secrets: readonly string[], ancestors: Set<object>): JsonValue | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string':
      return replaceSecrets(value, secrets);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'bigint':
      return replaceSecrets(value.toString(), secrets);
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.has(object)) return '[circular]';
  ancestors.add(object);
  try {
    if (Array.isArray(object)) return object.map((item) => walk(item, secrets, ancestors) ?? null);
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(object)) {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      const redactedKey = replaceSecrets(key, secrets);
      const redactedItem = isSensitiveKey(key) ? REDACTED : (walk(item, secrets, ancestors) ?? null);
      // defineProperty: a "__proto__" key in the input must stay a key, not set the copy's prototype.
      Object.defineProperty(out, redactedKey, { value: redactedItem, enumerable: true, writable: true, configurable: true });
    }
    return out;
  } finally {
    ancestors.delete(object);
  }
}
