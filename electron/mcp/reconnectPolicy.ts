/**
 * When a server that was ready loses its connection, the registry reconnects it by itself: the
 * first attempt soon, then less and less often (0.5 s, 1 s, 2 s … at most 30 s, with jitter so
 * many servers dropped together do not come back at once). A connection that stayed up for
 * `stableAfterMs` starts the count over at its next loss.
 */
import { backoffDelayMs } from '../util/backoff.js';
import type { MCPErrorCode } from './errors.js';

export interface ReconnectPolicy {
  /** Delay before the first attempt; doubles each attempt up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Up this long, a connection counts as stable: the next loss starts again at attempt 1. */
  stableAfterMs: number;
  /** The random source of the jitter (tests fix it). */
  random: () => number;
}

export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = Object.freeze({
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  stableAfterMs: 30_000,
  random: Math.random,
});

/** The wait before attempt `attempt` (1-based): the app's one backoff (util/backoff.ts). */
export function reconnectDelay(attempt: number, policy: ReconnectPolicy): number {
  return backoffDelayMs(attempt - 1, policy, policy.random);
}

/**
 * Failures another attempt cannot fix: a person must change something first (the token, the
 * command, the settings). Reconnecting stops on them and the server shows the error.
 */
const NEEDS_A_PERSON: ReadonlySet<MCPErrorCode | 'internal'> = new Set([
  'auth',
  'config',
  'command_not_found',
  // The server's sandbox cannot run here (a program missing, user namespaces refused): installing
  // it or turning the server's sandbox off is the person's to do.
  'sandbox_unavailable',
  'not_an_mcp_server',
  'sign_in_required',
  'oauth_failed',
  'gateway_loop',
]);

export function keepsReconnecting(code: MCPErrorCode | 'internal'): boolean {
  return !NEEDS_A_PERSON.has(code);
}
