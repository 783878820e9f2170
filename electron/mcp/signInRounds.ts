/**
 * OAuth sign-in rounds of a connection: when the server refused a request (401/403,
 * so it did not run) and the SDK started a browser sign-in (interactive sessions only), wait for
 * the person, hand the code — and the issuer the redirect named (RFC 9207) — to the SDK, and run
 * the request again: at most MAX_SIGN_IN_ROUNDS times (the sign-in, and one step-up to more scopes).
 * The wait for the person has its own deadline (the session's), not the request's; the
 * connection's close or the caller's signal end it.
 */
import { UnauthorizedError } from '@modelcontextprotocol/client';
import type { LogBuffer } from './logBuffer.js';
import type { OAuthSession } from './oauth/session.js';

/** Browser sign-ins one request may go through: the sign-in, and one step-up to more scopes. */
const MAX_SIGN_IN_ROUNDS = 2;

export interface SignInHost {
  oauth: OAuthSession | undefined;
  log: LogBuffer;
  /** Aborted when the connection closes. */
  closed: AbortSignal;
  /** The current transport's hand-over of the authorization code (absent: not an OAuth transport). */
  finishAuth(): ((code: string, iss?: string) => Promise<void>) | undefined;
}

export class SignInRounds {
  constructor(private readonly host: SignInHost) {}

  /** Runs a request, signing in (and running it again) when the refusal was a sign-in the SDK started. */
  async run<T>(request: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    for (let round = 0; ; round++) {
      try {
        return await request();
      } catch (error) {
        if (!(await this.completed(error, round, signal))) throw error;
      }
    }
  }

  /**
   * True once a browser sign-in that `error` stands for has completed and its code was exchanged
   * for tokens; false when `error` is something else (the caller rethrows it).
   */
  async completed(error: unknown, round: number, signal?: AbortSignal): Promise<boolean> {
    const { oauth, log, closed } = this.host;
    const pending = oauth?.pendingAuthorization();
    if (!oauth || !pending || !(error instanceof UnauthorizedError) || round >= MAX_SIGN_IN_ROUNDS || closed.aborted)
      return false;
    const stop = signal ? AbortSignal.any([signal, closed]) : closed;
    try {
      const response = await pending.code(stop);
      log.note('sign-in: the authorization arrived; requesting the token');
      const finishAuth = this.host.finishAuth();
      if (!finishAuth) return false;
      await finishAuth(response.code, response.iss);
      log.note('sign-in: signed in');
      return true;
    } finally {
      oauth.settlePendingAuthorization();
    }
  }
}
