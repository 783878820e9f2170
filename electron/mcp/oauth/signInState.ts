/**
 * An OAuth session's states as tables (the MCP Inspector v2 keeps its OAuth flow the same way:
 * named steps, and from each the steps it may take), so a transition no row allows is refused
 * instead of leaving a combination of flags nobody meant. Two independent parts:
 *
 * - The sign-in FLOW — whether a person is here and where the browser sign-in stands:
 *   `background` (no person: nothing is registered, no browser opens) → `interactive` (a person
 *   pressed Sign in; a grant with no browser step, client_credentials) or `listening` (the
 *   loopback redirect is open) → `awaiting_browser` (the authorization URL was opened; the code is
 *   awaited) → back to `listening` when its waiter settles, and to `background` when the person is
 *   done. The SDK asking to redirect while no person is here (or the grant has no redirect) is the
 *   refused transition: the request fails with "sign in".
 * - The STANDING — why a request made in the background must ask for a sign-in: `fresh` (never
 *   signed in here, or signed in), `token_rejected` (the server refused the saved tokens and they
 *   were dropped), `signed_out` (the person signed out). Every event is allowed from every
 *   standing; the table says where each leads.
 */
import type { LoopbackRedirect } from './loopback.js';

/** A browser sign-in in progress: its URL, the code it waits for, and how to abandon it. */
export interface ActiveAuthorization {
  readonly url: string;
  readonly abort: AbortController;
  code(signal?: AbortSignal): Promise<{ code: string; iss?: string }>;
}

export type SignInState =
  | { phase: 'background' }
  | { phase: 'interactive' }
  | { phase: 'listening'; listener: LoopbackRedirect }
  | { phase: 'awaiting_browser'; listener: LoopbackRedirect; pending: ActiveAuthorization };
type SignInPhase = SignInState['phase'];

export type SignInEvent =
  /** A person is here, for a grant with no browser step. */
  | { type: 'begin' }
  /** A person is here, and the loopback redirect listens. */
  | { type: 'listen'; listener: LoopbackRedirect }
  /** The SDK sent the person to the authorization URL (a newer one replaces a waiting one). */
  | { type: 'redirect'; pending: ActiveAuthorization }
  /** The waiter of the browser sign-in got its code, or gave up. */
  | { type: 'settle' }
  /** The person is done (signed in, cancelled, signed out). */
  | { type: 'end' };
type SignInEventType = SignInEvent['type'];

/** From each phase, the events it allows and the phase each leads to. A missing cell is refused. */
export const SIGN_IN_TABLE: { readonly [P in SignInPhase]: Partial<Record<SignInEventType, SignInPhase>> } = {
  background: { begin: 'interactive', listen: 'listening', settle: 'background', end: 'background' },
  interactive: { begin: 'interactive', settle: 'interactive', end: 'background' },
  listening: { begin: 'listening', redirect: 'awaiting_browser', settle: 'listening', end: 'background' },
  awaiting_browser: {
    begin: 'awaiting_browser',
    redirect: 'awaiting_browser',
    settle: 'listening',
    end: 'background',
  },
};

function listenerOf(state: SignInState): LoopbackRedirect | undefined {
  return 'listener' in state ? state.listener : undefined;
}

/** The state an event leads to, or undefined when the table refuses it. */
export function nextSignInState(state: SignInState, event: SignInEvent): SignInState | undefined {
  const to = SIGN_IN_TABLE[state.phase][event.type];
  const listener = event.type === 'listen' ? event.listener : listenerOf(state);
  switch (to) {
    case undefined:
      return undefined;
    case 'background':
    case 'interactive':
      return { phase: to };
    case 'listening':
      return listener ? { phase: to, listener } : undefined;
    case 'awaiting_browser': {
      const pending = event.type === 'redirect' ? event.pending : 'pending' in state ? state.pending : undefined;
      return listener && pending ? { phase: to, listener, pending } : undefined;
    }
  }
}

export type Standing = 'fresh' | 'token_rejected' | 'signed_out';
/** `tokens_refused`: the SDK dropped tokens the server refused (only when there were tokens to drop). */
type StandingEvent = 'begin' | 'tokens_saved' | 'tokens_refused' | 'sign_out';

export const STANDING_TABLE: { readonly [S in Standing]: Record<StandingEvent, Standing> } = {
  fresh: { begin: 'fresh', tokens_saved: 'fresh', tokens_refused: 'token_rejected', sign_out: 'signed_out' },
  token_rejected: {
    begin: 'token_rejected',
    tokens_saved: 'fresh',
    tokens_refused: 'token_rejected',
    sign_out: 'signed_out',
  },
  // Signing in again (a person pressed Sign in) leaves "signed out" before any token arrives.
  signed_out: { begin: 'fresh', tokens_saved: 'fresh', tokens_refused: 'signed_out', sign_out: 'signed_out' },
};
