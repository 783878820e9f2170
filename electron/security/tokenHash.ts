/** How a bearer token is kept: its SHA-256 (hex), never the token (agents' tokens, serve's API and bootstrap tokens). */
import { createHash } from 'node:crypto';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
