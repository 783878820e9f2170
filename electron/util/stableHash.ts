/**
 * The one stable-hash helper of the core: sha256 (hex) of a value's canonical JSON.
 *
 * Several hashes are persisted — checkpoint argument hashes (replay and idempotency), permission
 * rules' tool fingerprints, the schema cache's connection fingerprints — so the bytes hashed must
 * never change: keys sorted at every depth, undefined properties dropped as JSON.stringify drops
 * them, and values JSON cannot represent (functions, NaN, bigint, cycles) throw instead of
 * hashing to a guess. test/util/stableHash.test.ts pins the digests.
 */
import { hash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';

const stringify = configure({ deterministic: true, strict: true, bigint: false, circularValue: TypeError });

/** Canonical JSON of a value; undefined when the value itself is undefined (as JSON.stringify). */
export function canonicalJson(value: unknown): string | undefined {
  return stringify(value);
}

/** sha256 (hex) of the value's canonical JSON. Throws a TypeError for `undefined`. */
export function stableHash(value: unknown): string {
  const json = canonicalJson(value);
  if (json === undefined) throw new TypeError('Cannot hash undefined: it has no JSON form.');
  return hashCanonicalJson(json);
}

/** `stableHash` of a value whose canonical JSON the caller already has (from `canonicalJson`). */
export function hashCanonicalJson(json: string): string {
  // crypto.hash: one call, no Hash object (0.2 µs against createHash's 0.55 per call); a string is
  // hashed as UTF-8, as update(json, 'utf8') did — the pinned digests hold.
  return hash('sha256', json, 'hex');
}
