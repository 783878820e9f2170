/** How a bearer token is kept: its SHA-256 (hex), never the token (agents' tokens, serve's API and bootstrap tokens). */
import { hash } from 'node:crypto';

/** crypto.hash: one call per request's token, no Hash object (the digest is createHash's: a string is hashed as UTF-8). */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}
