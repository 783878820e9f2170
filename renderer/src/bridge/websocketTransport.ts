/**
 * The browser-mode transport: the contract over one WebSocket to the loopback host.
 *
 * Each (re)connection first asks `/session` whether the token is still valid — a WebSocket
 * upgrade that fails tells the page nothing about why, a 401 does. Calls are matched to results
 * by numeric id; a dropped link fails the calls in flight (their outcome is unknown, so they are
 * not replayed) and reconnects with exponential backoff.
 */
import type { DispatchResult } from '../../../shared/bridge.js';
import {
  BRIDGE_PATH,
  BRIDGE_PROTOCOL,
  HostFrameSchema,
  MAX_BRIDGE_FRAME_BYTES,
  requestTooLarge,
  serializeCall,
} from '../../../shared/bridge.js';
import type { ChannelName, EventName } from '../../../shared/contract.js';
import { isEventName } from '../../../shared/contract.js';
import { observable } from './observable.js';
import type { Observable } from './observable.js';
import { checkSession, forgetSessionToken } from './session.js';
import type { ConnectionState, Transport } from './transport.js';
import type { ErrorCode } from '../../../shared/errors.js';
import { LOCAL_ERROR } from './transport.js';

export interface WebSocketTransportOptions {
  /** First retry delay; doubles per failed attempt up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** How long a call made while disconnected waits for the link before it fails. */
  offlineCallWaitMs?: number;
  /** The host's origin (`http://127.0.0.1:PORT`); default: the page's own. */
  origin?: string;
  /** The WebSocket class; default: the browser's. Tests in Node pass the `ws` package's. */
  WebSocket?: WebSocketClass;
  /** Largest message the host accepts; a request that serializes larger is refused before sending. */
  maxFrameBytes?: number;
}

/** What the transport uses of a browser WebSocket (the `ws` package's class offers the same). */
interface BridgeSocket {
  readonly protocol: string;
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}
export type WebSocketClass = new (url: string, protocols: string) => BridgeSocket;

/** WebSocket.OPEN, without reaching for a global that Node 20 lacks. */
const OPEN = 1;

function bridgeUrl(origin: string, token: string): string {
  return `${origin.replace(/^http/, 'ws')}${BRIDGE_PATH}?token=${encodeURIComponent(token)}`;
}

/** Close codes worth naming to a person (RFC 6455 §7.4.1); others show as their number. */
const CLOSE_REASONS: Record<number, string> = {
  1002: 'the host saw a protocol error',
  1007: 'a message was not valid UTF-8',
  1008: 'the host refused a message',
  1009: 'a message was too large',
  1011: 'the host hit an internal error',
};

function closeDescription(code: number): string {
  return CLOSE_REASONS[code] ? `${CLOSE_REASONS[code]} (close code ${code})` : `close code ${code}`;
}

function failure(code: ErrorCode, message: string): DispatchResult {
  return { ok: false, error: { code, message } };
}

/** Routes one frame from the host: a result to its waiting call, an event to its listeners. */
function handleFrame(
  data: unknown,
  pending: Map<number, (result: DispatchResult) => void>,
  listeners: Map<EventName, Set<(payload: unknown) => void>>,
): void {
  if (typeof data !== 'string') return;
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    console.warn('[bridge] ignored a frame that is not JSON');
    return;
  }
  const frame = HostFrameSchema.safeParse(json);
  if (!frame.success) {
    console.warn('[bridge] ignored a frame that does not match the protocol');
    return;
  }
  const value = frame.data;
  if (value.t === 'result') {
    const resolve = pending.get(value.id);
    if (!resolve) return;
    pending.delete(value.id);
    resolve(value.ok ? { ok: true, result: value.result } : { ok: false, error: value.error });
    return;
  }
  if (!isEventName(value.event)) return;
  for (const listener of [...(listeners.get(value.event) ?? [])]) listener(value.payload);
}

/** Resolves true once the link is open, false when it is refused or the wait runs out. */
function waitForOpen(connection: Observable<ConnectionState>, offlineCallWaitMs: number): Promise<boolean> {
  const now = connection.get();
  if (now.status === 'open') return Promise.resolve(true);
  if (now.status === 'unauthorized') return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(false);
    }, offlineCallWaitMs);
    const unsubscribe = connection.subscribe((state) => {
      if (state.status !== 'open' && state.status !== 'unauthorized') return;
      clearTimeout(timer);
      unsubscribe();
      resolve(state.status === 'open');
    });
  });
}

/** Sends one call on an open socket; its result arrives through `pending`. */
function sendCall(
  ws: BridgeSocket,
  pending: Map<number, (result: DispatchResult) => void>,
  { id, channel, payload }: { id: number; channel: ChannelName; payload: unknown },
  maxFrameBytes: number,
): Promise<DispatchResult> {
  // The host closes the socket on a message over its limit (and every call in flight with it):
  // refuse such a request here, by code, before anything is sent.
  const frame = serializeCall({ t: 'call', id, channel, payload });
  if (frame.sizeBytes > maxFrameBytes)
    return Promise.resolve({ ok: false, error: requestTooLarge(channel, frame.sizeBytes, maxFrameBytes) });
  return new Promise<DispatchResult>((resolve) => {
    pending.set(id, resolve);
    try {
      ws.send(frame.text);
    } catch (error) {
      pending.delete(id);
      resolve(failure(LOCAL_ERROR.transport, error instanceof Error ? error.message : String(error)));
    }
  });
}

export function createWebSocketTransport(
  token: string | undefined,
  options: WebSocketTransportOptions = {},
): Transport {
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  const offlineCallWaitMs = options.offlineCallWaitMs ?? 15_000;
  const maxFrameBytes = options.maxFrameBytes ?? MAX_BRIDGE_FRAME_BYTES;
  const origin = options.origin ?? window.location.origin;
  const SocketClass: WebSocketClass = options.WebSocket ?? (WebSocket as unknown as WebSocketClass);

  const connection = observable<ConnectionState>(
    token ? { status: 'connecting' } : { status: 'unauthorized', reason: 'missing_token' },
  );
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const pending = new Map<number, (result: DispatchResult) => void>();
  let socket: BridgeSocket | undefined;
  let nextId = 1;
  let attempt = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let connecting = false;

  function failPending(code: ErrorCode, message: string): void {
    const waiting = [...pending.values()];
    pending.clear();
    for (const resolve of waiting) resolve(failure(code, message));
  }

  function scheduleRetry(reason: string): void {
    attempt += 1;
    const exp = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    // Jitter so several tabs do not hammer a restarting host in lockstep.
    const delay = Math.round(exp * (0.8 + Math.random() * 0.4));
    connection.set({ status: 'reconnecting', attempt, retryAt: Date.now() + delay, reason });
    retryTimer = setTimeout(() => void connect(), delay);
  }

  async function connect(): Promise<void> {
    if (!token || connecting || socket) return;
    connecting = true;
    clearTimeout(retryTimer);
    connection.set({ status: 'connecting' });
    const session = await checkSession(token, origin);
    connecting = false;
    if (session === 'unauthorized') {
      forgetSessionToken();
      failPending('unauthorized', 'The host refused this session.');
      connection.set({ status: 'unauthorized', reason: 'rejected' });
      return;
    }
    if (session === 'unreachable') {
      scheduleRetry('The MiniHarness host does not answer.');
      return;
    }

    const ws = new SocketClass(bridgeUrl(origin, token), BRIDGE_PROTOCOL);
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      if (ws.protocol !== BRIDGE_PROTOCOL) {
        ws.close(1002, 'unsupported protocol');
        return;
      }
      opened = true;
      attempt = 0;
      connection.set({ status: 'open' });
    };
    ws.onmessage = (message) => handleFrame(message.data, pending, listeners);
    ws.onclose = (event) => {
      if (socket === ws) socket = undefined;
      // 1000/1001/1005/1006 are ordinary ends (or a host that went away); others name a cause.
      const cause = [1000, 1001, 1005, 1006].includes(event.code) ? '' : `: ${closeDescription(event.code)}`;
      failPending(
        LOCAL_ERROR.disconnected,
        `The connection to the host was lost before the answer arrived${cause}; check the result and try again.`,
      );
      scheduleRetry(opened ? `The connection to the host was lost${cause}.` : 'The host refused the connection.');
    };
  }

  async function call(channel: ChannelName, payload: unknown): Promise<DispatchResult> {
    if (!(await waitForOpen(connection, offlineCallWaitMs)) || !socket || socket.readyState !== OPEN) {
      return connection.get().status === 'unauthorized'
        ? failure('unauthorized', 'This session is not authorized.')
        : failure(LOCAL_ERROR.disconnected, 'Not connected to the MiniHarness host.');
    }
    return sendCall(socket, pending, { id: nextId++, channel, payload }, maxFrameBytes);
  }

  function retryNow(): void {
    if (connection.get().status === 'reconnecting') void connect();
  }

  // The network coming back is a good moment not to wait out the backoff.
  if (typeof window !== 'undefined') window.addEventListener('online', retryNow);
  void connect();

  return {
    connection,
    call,
    retryNow,
    subscribe(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return () => void set.delete(listener);
    },
  };
}
