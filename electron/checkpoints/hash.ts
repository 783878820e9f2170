import { stableHash } from '../util/stableHash.js';

/**
 * The identity of a call's arguments: sha256 (hex) of their canonical JSON (see stableHash).
 *
 * Hash the arguments as sent (before redaction), so two calls that differ only in a secret do
 * not look identical. The hash of a low-entropy secret can be guessed offline; the database
 * is local to the user, which is why a plain hash is acceptable here.
 */
export function hashArguments(args: unknown): string {
  if (args === undefined) {
    throw new TypeError('Tool arguments must be a JSON value (got undefined); pass {} for a call without arguments.');
  }
  return stableHash(args);
}
