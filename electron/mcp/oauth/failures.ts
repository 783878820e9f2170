/**
 * What the SDK throws while it runs OAuth for a server, as the MCP layer's typed errors: "sign
 * in" (`sign_in_required`) or what failed (`oauth_failed`). Messages are built from fixed words
 * and what the authorization server named (its error code); an SDK message is quoted only for
 * discovery failures, which hold URLs and HTTP statuses, never a token.
 */
import { IssuerMismatchError, OAuthError, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import type { MCPError } from '../errors.js';
import { MCPOAuthError, MCPSignInRequiredError } from './errors.js';

/** Registration errors of RFC 7591; any other OAuth error code came from a token request. */
const REGISTRATION_ERRORS = new Set([
  'invalid_client_metadata',
  'invalid_redirect_uri',
  'invalid_software_statement',
  'unapproved_software_statement',
]);
/** Discovery failures the SDK reports as plain errors (HTTP status and URL only). */
const DISCOVERY_FAILURE =
  /trying to load|does not implement OAuth 2\.0 Protected Resource Metadata|Incompatible auth server/;

/** The typed error for an OAuth failure of an OAuth-configured server, or undefined when `error` is something else. */
export function mapOAuthFailure(serverId: string, error: unknown, context: { oauth: boolean }): MCPError | undefined {
  if (!context.oauth) return undefined;
  // RFC 9207: the redirect's `iss` is not the authorization server the sign-in went to.
  if (error instanceof IssuerMismatchError) return new MCPOAuthError(serverId, 'issuer_mismatch');
  if (error instanceof OAuthError) {
    const code = error.code;
    if (code === 'access_denied') return new MCPOAuthError(serverId, 'denied', { oauthError: code });
    return new MCPOAuthError(serverId, REGISTRATION_ERRORS.has(code) ? 'registration_failed' : 'token_request_failed', {
      oauthError: code,
    });
  }
  // The SDK started a browser sign-in that nobody completes here (more rounds than a request may take).
  if (error instanceof UnauthorizedError) return new MCPSignInRequiredError(serverId, 'token_rejected');
  if (error instanceof SdkHttpError) {
    if (error.status === 403 && /after trying upscoping/.test(error.message))
      return new MCPOAuthError(serverId, 'step_up_refused');
    if (error.status === 401 && /after successful authentication/.test(error.message))
      return new MCPSignInRequiredError(serverId, 'token_rejected');
    return undefined;
  }
  if (error instanceof Error && DISCOVERY_FAILURE.test(error.message))
    return new MCPOAuthError(serverId, 'discovery_failed', { detail: error.message });
  return undefined;
}
