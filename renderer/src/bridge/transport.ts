/**
 * What the bridge client needs from a way to reach main: one call, one subscription, and a
 * connection state for the UI. Electron IPC and the browser-mode WebSocket both provide it.
 */
import type { DispatchResult } from '../../../shared/bridge.js';
import type { ChannelName, EventName } from '../../../shared/contract.js';
import type { Observable } from './observable.js';

export type ConnectionState =
  /** First connection attempt (or the session check before it). */
  | { status: 'connecting' }
  | { status: 'open' }
  /** The link dropped; the next attempt starts at `retryAt` (ms since epoch). */
  | { status: 'reconnecting'; attempt: number; retryAt: number; reason: string }
  /** The host refused the token (or there is none): nothing is shown until a valid link is opened. */
  | { status: 'unauthorized'; reason: 'missing_token' | 'rejected' };

export interface Transport {
  /** Never rejects: a transport failure comes back as `{ ok: false, error }`. */
  call(channel: ChannelName, payload: unknown): Promise<DispatchResult>;
  /** Raw (not yet validated) event payloads. */
  subscribe(event: EventName, listener: (payload: unknown) => void): () => void;
  readonly connection: Observable<ConnectionState>;
  /** Skips the backoff wait and tries to connect now (no-op when there is nothing to retry). */
  retryNow(): void;
}

/** Error codes the renderer itself produces (main's codes come through unchanged). */
export const LOCAL_ERROR = {
  disconnected: 'disconnected',
  badResponse: 'bad_response',
  transport: 'transport',
} as const;
