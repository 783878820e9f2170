import type { JsonValue } from '../secrets/redaction.js';
import { canonicalJson, hashCanonicalJson, stableHash } from '../util/stableHash.js';

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

export interface CheckpointArguments {
  /** `hashArguments` of the arguments as sent. */
  argsHash: string;
  /** The arguments as stored: redacted. */
  args: JsonValue;
  /** Their JSON, as stored. */
  argsJson: string;
}

/**
 * What a claim needs from a call's arguments — their hash (as sent) and their stored, redacted
 * form with its JSON — from ONE canonical serialization when redaction changed nothing (the
 * common case: the canonical JSON of the copy is then that of the arguments, so it is hashed
 * and stored as is). Only arguments that had something redacted are serialized twice.
 */
export function checkpointArguments(
  args: unknown,
  redact: (value: unknown) => { value: JsonValue; changed: boolean },
): CheckpointArguments {
  if (args === undefined) return { argsHash: hashArguments(args), args: null, argsJson: 'null' }; // throws, as hashArguments does
  const redacted = redact(args);
  const argsJson = canonicalJson(redacted.value) as string; // a JsonValue always has a JSON form
  return {
    argsHash: redacted.changed ? hashArguments(args) : hashCanonicalJson(argsJson),
    args: redacted.value,
    argsJson,
  };
}
