/**
 * The Content Security Policy of the app's page, sent as a response header by the session
 * (works for the dev server's http responses) — the renderer's index.html carries the same
 * production policy in a meta tag, which is what applies to file:// loads. Both are enforced.
 * The policy itself lives in shared/csp.ts, which browser mode's host uses too.
 */
import { CONTENT_SECURITY_POLICY, PRODUCTION_CSP_DIRECTIVES, serializeCsp } from '../../shared/csp.js';
import type { AppLocation } from './appLocation.js';

export { CONTENT_SECURITY_POLICY } from '../../shared/csp.js';

/**
 * Development only (the electron-vite dev server): Vite injects an inline module preamble for
 * React refresh and <style> tags for CSS, and its HMR client opens a WebSocket to the server.
 * Still no eval and no remote origins.
 */
export function developmentCsp(devOrigin: string): string {
  const ws = devOrigin.replace(/^http/, 'ws');
  return serializeCsp({
    ...PRODUCTION_CSP_DIRECTIVES,
    'script-src': ["'self'", "'unsafe-inline'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'connect-src': ["'self'", ws],
  });
}

export function cspFor(location: AppLocation): string {
  return location.kind === 'dev' ? developmentCsp(location.origin) : CONTENT_SECURITY_POLICY;
}

export type ResponseHeaders = Record<string, string[] | string>;

/**
 * The response headers with our policy in place of any the server sent (header names are
 * case-insensitive, so every spelling of Content-Security-Policy is replaced).
 */
export function cspHeaders(
  responseHeaders: ResponseHeaders | undefined,
  policy: string = CONTENT_SECURITY_POLICY,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(responseHeaders ?? {})) {
    if (name.toLowerCase() === 'content-security-policy') continue;
    out[name] = Array.isArray(value) ? value : [value];
  }
  out['Content-Security-Policy'] = [policy];
  return out;
}
