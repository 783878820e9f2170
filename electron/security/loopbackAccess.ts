/**
 * Who may talk to a loopback endpoint of the app (the browser-mode host, the agent gateway).
 * uses, so it must be as closed as IPC: loopback only, a random per-start token compared in
 * constant time, and a Host/Origin allow-list — the MCP Inspector's proxy was exploitable
 * (CVE-2025-49596) through a DNS-rebinding page talking to localhost without these checks.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokensEqual(expected: string, given: string | undefined | null): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  if (a.length !== b.length) {
    // timingSafeEqual needs equal lengths; comparing against itself keeps the time flat.
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

/** The Host header must name this loopback address and port (defeats DNS rebinding). */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  return typeof host === 'string' && allowedHosts(port).has(host.toLowerCase());
}

/** A browser always sends Origin on WebSocket and cross-origin requests; it must be our page. */
export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
}

/**
 * The token of an `Authorization: Bearer <token>` header. The scheme is matched without regard to
 * case, and the space after it may be several (RFC 9110 §11.1, RFC 6750 §2.1): `bearer x` and
 * `BEARER  x` are the same credentials, and clients do send them so.
 */
export function bearerOf(header: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(header ?? '');
  return match?.[1];
}
