/**
 * Who may reach the browser-mode host and with what. `npm run web` uses the loopback token
 * (loopbackTokenAccess); `miniharness serve` (electron/serve/) plugs in people who signed in,
 * with roles. The host asks in this order: Host and Origin for every request and upgrade, then
 * the access's own routes (sign-in, health), then who the caller is (`/session`, the bridge's
 * upgrade), then, on every contract request, whether that caller may use that channel.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DispatchResult } from '../../shared/bridge.js';
import type { EventName } from '../../shared/channelNames.js';
import { bearerOf, isAllowedHost, isAllowedOrigin, tokensEqual } from '../security/loopbackAccess.js';

/** The header the `miniharness` command line sends: its tool calls are then the CLI's, not the page's. */
export const CLI_CLIENT_HEADER = 'x-miniharness-client';

export interface WebAccess<Caller = unknown> {
  /** The Host header names this endpoint (defeats DNS rebinding). */
  hostAllowed(host: string | undefined, port: number): boolean;
  /** An Origin header (absent on same-origin GETs) is this page's. */
  originAllowed(origin: string | undefined, port: number): boolean;
  /** Routes of its own (sign-in, health); resolves true when it answered the request. */
  handle?(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean>;
  /** The caller of `/session` (bearer) or of a bridge upgrade (bearer, else `?token=`); undefined: refused (401). */
  authenticate(req: IncomingMessage, token: string | undefined): Caller | undefined | Promise<Caller | undefined>;
  /** Whether the caller's session still holds (checked when `watchEnded` calls back; default: always). */
  alive?(caller: Caller): boolean;
  /**
   * Calls `recheck` whenever some callers' sessions may have ended (a sign-out on any instance):
   * the host then closes each bridge whose caller `alive` refuses. Returns the unsubscribe.
   */
  watchEnded?(recheck: () => void): () => void;
  /** May this caller use this channel now (checked on every request); a sentence when not. */
  refusal?(caller: Caller, channel: string): string | undefined;
  /**
   * Whether this caller's page gets this event (default: every event). `byActor`: who caused it
   * (requestActor.ts), when a request did.
   */
  eventAllowed?(caller: Caller, event: EventName, byActor: string | undefined): boolean;
  /** Who the caller's tool calls are recorded as in History and Traces (undefined: the page's own, `gui`). */
  actorOf?(caller: Caller): string | undefined;
  /**
   * Channels the access answers itself (`miniharness serve`'s `people.*`), after `refusal`;
   * undefined: the core answers.
   */
  dispatch?(caller: Caller, channel: string, payload: unknown): Promise<DispatchResult> | undefined;
  /** After a contract request was answered (an audit trail). */
  onDispatched?(caller: Caller, channel: string, ok: boolean): void;
  /**
   * `/healthz` and `/readyz` for a load balancer (answered before the Host check: it probes by address).
   * `draining`: shutting down — a new bridge connection is refused (503 + Retry-After) before anything
   * is read from it, so a balancer hands it to another instance; open connections go on.
   */
  health?(): { ready: boolean; reason?: string; draining?: boolean };
  /** The sentence a page without a valid token gets. */
  unauthorizedText?: string;
}

/** `npm run web`: one per-start token (the printed link carries it), loopback Host and Origin only. */
export function loopbackTokenAccess(token: string): WebAccess<{ cli: boolean }> {
  return {
    hostAllowed: isAllowedHost,
    originAllowed: isAllowedOrigin,
    authenticate: (req, given) =>
      tokensEqual(token, given) ? { cli: req.headers[CLI_CLIENT_HEADER] === 'cli' } : undefined,
    actorOf: (caller) => (caller.cli ? 'CLI' : undefined),
    unauthorizedText: 'Unauthorized: open the link printed by `npm run web`.',
  };
}

/** The bearer token of `/session`. */
export function sessionBearer(req: IncomingMessage): string | undefined {
  return bearerOf(req.headers.authorization);
}
