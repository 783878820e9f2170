/**
 * Reads what a failed `fetch` (undici) says underneath "fetch failed": the system error in its
 * `cause` chain (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED, UND_ERR_CONNECT_TIMEOUT, …), as a
 * kind the GUI can name, with the host and port the URL points at.
 */
import type { UnreachableKind } from './errors.js';

export interface NetworkFailure {
  kind: UnreachableKind;
  host: string;
  port: number;
  /** The system's code, when there was one. */
  errno?: string;
}

const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
const TIMEOUT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT']);
const RESET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const NETWORK = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);
/** OpenSSL's certificate codes, Node's TLS codes, and EPROTO (a TLS hello answered by plain HTTP). */
const TLS = /^(CERT_|UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH$|EPROTO$)/;

/** The errno-style codes along an error's cause chain, outermost first (an AggregateError counts its first). */
function codesOf(error: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string') messages.push(message);
    const inner = (current as { errors?: unknown }).errors;
    current = (current as { cause?: unknown }).cause ?? (Array.isArray(inner) ? inner[0] : undefined);
  }
  return { codes, messages };
}

function kindOf(code: string): UnreachableKind | undefined {
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (DNS.has(code)) return 'dns';
  if (TLS.test(code)) return 'tls';
  if (TIMEOUT.has(code)) return 'timeout';
  if (RESET.has(code)) return 'reset';
  if (NETWORK.has(code)) return 'network';
  return undefined;
}

/** Where a URL points: its host and its port (the scheme's default when it names none). */
function endpointOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  return { host: parsed.hostname, port };
}

/**
 * The network failure behind an error from `fetch` to `url`, or undefined when the error is
 * not one (an HTTP status, a protocol error, an abort).
 */
export function networkFailureOf(error: unknown, url: string): NetworkFailure | undefined {
  const { codes, messages } = codesOf(error);
  const where = endpointOf(url);
  for (const code of codes) {
    const kind = kindOf(code);
    if (kind) return { kind, ...where, errno: code };
  }
  // The fetch standard's blocked ports (1, 25, 6000, …) fail with "bad port" and no code.
  if (messages.some((m) => m === 'bad port')) return { kind: 'blocked_port', ...where };
  return undefined;
}
