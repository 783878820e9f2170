/**
 * The OAuth errors of the MCP layer: a server that needs a person to sign in, and an OAuth
 * exchange that failed. Both carry typed details (`details.oauth`, see shared/errors.ts) so the
 * GUI says "sign in" by code, never by reading a message. Neither ever holds a token: messages
 * are built here from fixed words and what the authorization server named (an error code, a
 * scope, a resource URL).
 */
import type { ErrorDetails, OAuthDetail } from '../../../shared/errors.js';
import { MCPError } from '../errors.js';

type SignInReason = Extract<
  OAuthDetail['reason'],
  'no_token' | 'token_rejected' | 'insufficient_scope' | 'not_configured' | 'signed_out'
>;
type FailureReason = Exclude<OAuthDetail['reason'], SignInReason>;

const SIGN_IN_WORDS: Record<SignInReason, string> = {
  no_token: 'requires you to sign in (OAuth). Use Sign in on the server.',
  token_rejected: 'no longer accepts the saved sign-in and it could not be renewed. Sign in again.',
  insufficient_scope: 'needs more permissions for this request. Sign in again to grant them.',
  not_configured:
    'asks for an OAuth sign-in (HTTP 401 with an OAuth challenge), but it is not set up for one. Set its authentication to "OAuth sign-in", then sign in.',
  signed_out: 'is signed out. Use Sign in on the server.',
};

const FAILURE_WORDS: Record<FailureReason, string> = {
  resource_mismatch:
    'its OAuth metadata names another resource; the sign-in was refused so no token for it is sent elsewhere',
  discovery_failed: 'its OAuth metadata could not be found or read',
  registration_failed: 'the authorization server refused to register this app as a client',
  token_request_failed: 'the authorization server refused the token request',
  denied: 'the sign-in was refused in the browser',
  sign_in_timeout: 'the sign-in was not completed in time',
  step_up_refused: 'the server still refused the request after more permissions were granted',
  redirect_unavailable: 'the sign-in cannot receive its redirect',
  issuer_mismatch:
    'the sign-in came back naming another authorization server (RFC 9207); it was refused and no code was exchanged',
};

/** The server needs a person to sign in (or to sign in again with more scopes). Nothing was sent. */
export class MCPSignInRequiredError extends MCPError {
  readonly code = 'sign_in_required';
  constructor(
    serverId: string,
    readonly reason: SignInReason,
    readonly scope?: string,
  ) {
    super(`Server "${serverId}" ${SIGN_IN_WORDS[reason]}${scope ? ` (scope: ${scope})` : ''}`, serverId);
  }

  override get details(): ErrorDetails {
    return {
      ...super.details,
      retryable: false,
      oauth: { reason: this.reason, ...(this.scope ? { scope: this.scope } : {}) },
    };
  }
}

/** An OAuth exchange failed: discovery, registration, the token request, or a check of ours. */
export class MCPOAuthError extends MCPError {
  readonly code = 'oauth_failed';
  constructor(
    serverId: string,
    readonly reason: FailureReason,
    readonly extra: { oauthError?: string; resource?: string; detail?: string } = {},
  ) {
    const said = extra.oauthError ? ` (${extra.oauthError})` : '';
    const resource = extra.resource ? ` (${extra.resource})` : '';
    const detail = extra.detail ? `: ${extra.detail}` : '';
    super(`Server "${serverId}": ${FAILURE_WORDS[reason]}${resource}${said}${detail}.`, serverId);
  }

  override get details(): ErrorDetails {
    return {
      ...super.details,
      retryable: false,
      oauth: {
        reason: this.reason,
        ...(this.extra.oauthError ? { oauthError: this.extra.oauthError } : {}),
        ...(this.extra.resource ? { resource: this.extra.resource } : {}),
      },
    };
  }
}
