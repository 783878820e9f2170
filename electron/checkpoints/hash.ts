import { createHash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';

// Canonical JSON: keys sorted at every depth, so {a,b} and {b,a} hash alike. Strict: values
// JSON cannot represent (functions, NaN, bigint, cycles) throw instead of hashing to a guess.
const canonicalJson = configure({ deterministic: true, strict: true, bigint: false, circularValue: TypeError });

/**
 * The identity of a call's arguments: sha256 (hex) of their canonical JSON. Undefined object
 * properties are dropped, as JSON.stringify drops them.
 *
 * Hash the arguments as sent (before redaction), so two calls that differ only in a secret do
 * not look identical. The hash of a low-entropy secret can be guessed offline; the database
 * is local to the user, which is why a plain hash is acceptable here.
 */
export function hashArguments(args: unknown): string {
  const json = canonicalJson(args);
  if (json === undefined) {
    throw new TypeError('Tool arguments must be a JSON value (got undefined); pass {} for a call without arguments.');
  }
  return createHash('sha256').update(json, 'utf8').digest('hex');
}
