/**
 * Who may talk to a loopback endpoint of the app (the browser-mode host, the agent gateway).
 * uses, so it must be as closed as IPC: loopback only, a random per-start token compared in
 * constant time, and a Host/Origin allow-list — the MCP Inspector's proxy was exploitable
 * (CVE-2025-49596) through a DNS-rebinding page talking to localhost without these checks.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';

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

/** The names a loopback endpoint of the app is reached by (it listens on 127.0.0.1 only, so not [::1]). */
const LOOPBACK_HOSTNAMES = ['127.0.0.1', 'localhost'];

/**
 * The Host header must name this loopback address and port (defeats DNS rebinding). The SDK's
 * check (`validateHostHeader`, what its `hostHeaderValidation` guard runs) decides the name; ours
 * adds what it does not: the port must be this endpoint's (the SDK's is port-agnostic) and the
 * header exactly `<name>:<port>` (it reads the header through URL parsing, which would also take
 * a path, user info or a zero-padded port after the name).
 */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  // The same Host comes with every request of a client: the last one allowed is known without the SDK's URL parse.
  if (host !== undefined && host === lastAllowedHost.host && port === lastAllowedHost.port) return true;
  const checked = validateHostHeader(host, LOOPBACK_HOSTNAMES);
  const allowed = checked.ok && host?.toLowerCase() === `${checked.hostname}:${port}`;
  if (allowed) lastAllowedHost = { host, port };
  return allowed;
}

/** The last Host header isAllowedHost allowed, with its port (the answer depends on nothing else). */
let lastAllowedHost: { host: string | undefined; port: number } = { host: undefined, port: -1 };

/**
 * A browser always sends Origin on WebSocket and cross-origin requests; it must be our page. The
 * SDK's check (`validateOriginHeader`, what its `originValidation` guard runs) decides the name
 * (and refuses what does not parse, `null` included); ours adds the scheme and the port: the
 * SDK's is port-agnostic, so a page another program serves on localhost would pass it.
 */
export function isAllowedOrigin(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true;
  const checked = validateOriginHeader(origin, LOOPBACK_HOSTNAMES);
  return checked.ok && origin === `http://${checked.hostname}:${port}`;
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
