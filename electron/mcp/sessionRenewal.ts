/**
 * The session a connection's requests are sent on, renewed when it no longer holds:
 *
 * - legacy HTTP: the server answered 404 for the session id (it expired, or the server
 *   restarted), so it did not process the request: a new session is started (negotiated again,
 *   once at a time) and the request sent once more on it;
 * - a connection made from a kept era verdict whose first request failed (a modern verdict
 *   adopts the discover result with no round trip, so this is where a stale one shows): the
 *   verdict is dropped, the era negotiated afresh, and the request sent once more;
 * - on close, a legacy HTTP session is ended on the server (`DELETE`), waiting a little.
 *
 * Making the new session (a new transport and negotiation) is the lifecycle's (`renew` of the
 * host); this file decides when, makes sure only one renewal runs, and retries once.
 */
import type { Client } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import type { LogBuffer } from './logBuffer.js';
import type { OpenedTransport } from './transports.js';

/** How long close() waits for the server to acknowledge the end of an HTTP session (`DELETE`). */
const END_SESSION_WAIT_MS = 2_000;

export interface SessionHost {
  log: LogBuffer;
  /** The ready SDK client, or the refusal (before negotiation, after close). */
  requireReady(operation: string): Client;
  opened(): OpenedTransport | undefined;
  /** Closed, or lost: nothing is renewed then. */
  ended(): boolean;
  ready(): boolean;
  /** Makes a new session (new transport, negotiation); a failure marks the connection lost. */
  renew(why: string): Promise<void>;
  /** The kept verdict failed: forget it, and negotiate afresh from now on. */
  dropVerdict(): void;
  timeoutMs(): number;
  redact(text: string): string;
}

export class SessionRenewal {
  private renewing: Promise<void> | undefined;
  /** The connection was made from a kept verdict and no request has succeeded on it yet. */
  unverifiedPrior = false;

  constructor(private readonly host: SessionHost) {}

  /** A new session is being made (events of the old one mean nothing now). */
  get inProgress(): boolean {
    return this.renewing !== undefined;
  }

  /** Sends one request on the current session, renewing it once when it no longer holds. */
  async send<T>(operation: string, send: (sdk: Client) => Promise<T>): Promise<T> {
    const { host } = this;
    await this.renewing?.catch(() => undefined);
    const sdk = host.requireReady(operation);
    const opened = host.opened();
    try {
      const result = await send(sdk);
      this.unverifiedPrior = false;
      return result;
    } catch (error) {
      // A read (a list, a log level) is sent again after any failure but a deadline. A tool call
      // only when the server refused it unread (wrong era, version, headers, no such method or
      // session): a server of the other era may have run it and answered in a shape the SDK
      // refuses, and a tools/call must never run twice.
      const again = operation.startsWith('tools/call') ? refusedUnprocessed(error) : !isDeadline(error);
      if (this.unverifiedPrior && host.opened() === opened && !host.ended() && again) {
        this.unverifiedPrior = false;
        host.dropVerdict();
        host.log.note(`${operation} failed on a connection made from the kept protocol era; negotiating afresh`);
        await this.renew('the kept protocol era no longer holds');
        return send(host.requireReady(operation));
      }
      if (!(error instanceof SdkHttpError && error.status === 404 && opened?.sessionExpired()) || host.ended())
        throw error;
      // Another request (or the event stream) may be renewing it, or have renewed it already.
      await (this.renewing ?? (host.opened() === opened ? this.renew() : undefined));
      return send(host.requireReady(operation));
    }
  }

  /** The transport saw a 404 for this session (a request, or the event stream reopening). */
  expired(): void {
    if (!this.host.ready() || this.host.ended()) return;
    this.renew().catch(() => undefined); // a failure marks the connection lost
  }

  /** One renewal at a time: a second caller waits for the one running. */
  renew(why = 'the server no longer knows this session (HTTP 404)'): Promise<void> {
    this.renewing ??= this.host.renew(why).finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** Ends the HTTP session on the server (`DELETE`), waiting a little for the answer; a failure is only noted. */
  async end(lost: boolean): Promise<void> {
    const opened = this.host.opened();
    if (!opened?.terminate || !opened.sessionId() || opened.sessionExpired() || lost) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.min(END_SESSION_WAIT_MS, this.host.timeoutMs()));
    });
    try {
      await Promise.race([opened.terminate(), gaveUp]);
    } catch (error) {
      this.host.log.note(
        `ending the session: ${this.host.redact(error instanceof Error ? error.message : String(error))}`,
      );
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A deadline (or the caller's cancel): says nothing about the kept era. */
/** JSON-RPC codes a server answers with before it processes a request (2026-07-28: -32020 header mismatch, -32022 unsupported version). */
const UNPROCESSED_CODES = new Set([-32020, -32022, ProtocolErrorCode.InvalidRequest, ProtocolErrorCode.MethodNotFound]);
/** HTTP statuses a server refuses a request with before processing it (bad request, no such session, method, content type). */
const UNPROCESSED_STATUSES = new Set([400, 404, 405, 406, 415]);

/** Whether a failure proves the server did not process the request (so sending it again cannot repeat an effect). */
export function refusedUnprocessed(error: unknown): boolean {
  if (error instanceof SdkHttpError) return error.status !== undefined && UNPROCESSED_STATUSES.has(error.status);
  if (error instanceof ProtocolError) return UNPROCESSED_CODES.has(error.code);
  // The era probe or the transport failed before anything was sent, as the SDK reports it.
  return (
    error instanceof SdkError &&
    (error.code === SdkErrorCode.EraNegotiationFailed || error.code === SdkErrorCode.NotConnected)
  );
}

function isDeadline(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}
