/**
 * Electron's MCP Apps sandbox origin: a dedicated scheme, `mh-app-sandbox://proxy`, that no page
 * of the app has (the app's page is file:// or the dev server), served from memory with the same
 * proxy page and script as browser mode's sandbox port (electron/core/appSandboxPage.ts). The app
 * page frames it; nothing else is served, and the scheme has no privileges beyond being a
 * standard, secure origin (no fetch API, no CORS, no service workers, no CSP bypass).
 *
 * Electron appears here only as types; main.ts passes `protocol` and `session`. The options and
 * the handler are tested in plain Node (test/shell/appSandboxProtocol.test.ts).
 */
import type { CustomScheme, Protocol } from 'electron';
import { APP_SANDBOX_SCHEME, ELECTRON_APP_SANDBOX_ORIGIN } from '../../shared/appSandbox.js';
import type { SandboxResponse } from '../core/appSandboxPage.js';
import { sandboxResponse } from '../core/appSandboxPage.js';
import type { AppLocation } from './appLocation.js';
import { parseUrl } from './appLocation.js';

/** Registered before the app is ready (protocol.registerSchemesAsPrivileged). */
export const APP_SANDBOX_SCHEME_PRIVILEGES: CustomScheme = {
  scheme: APP_SANDBOX_SCHEME,
  privileges: {
    // A real origin (mh-app-sandbox://proxy), other than the app page's, and a secure context.
    standard: true,
    secure: true,
    bypassCSP: false,
    allowServiceWorkers: false,
    supportFetchAPI: false,
    corsEnabled: false,
    stream: false,
    codeCache: false,
  },
};

/** Who may frame the proxy: the app's own page (file:// in production, the dev server in development). */
function sandboxFrameAncestors(location: AppLocation): string[] {
  return location.kind === 'dev' ? [location.origin] : ['file:'];
}

/** `mh-app-sandbox://proxy/…` (compared by scheme and host: outside Chromium a custom scheme's origin is opaque). */
function onSandboxOrigin(parsed: URL | undefined): parsed is URL {
  return (
    parsed !== undefined &&
    parsed.protocol === `${APP_SANDBOX_SCHEME}:` &&
    parsed.host === 'proxy' &&
    !parsed.username &&
    !parsed.password
  );
}

/** The answer to one request on the scheme: only GET of the proxy's two paths on `mh-app-sandbox://proxy`. */
export function appSandboxProtocolResponse(method: string, url: string, location: AppLocation): SandboxResponse {
  const parsed = parseUrl(url);
  const plain = {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'",
  };
  if (!onSandboxOrigin(parsed)) return { status: 404, headers: plain, body: 'Not found' };
  if (method !== 'GET') return { status: 405, headers: plain, body: 'Method not allowed' };
  return sandboxResponse(parsed, {
    sandboxOrigin: ELECTRON_APP_SANDBOX_ORIGIN,
    frameAncestors: sandboxFrameAncestors(location),
  });
}

/** True for the frames an app lives in: the proxy page and the app's srcdoc inside it. */
export function isAppSandboxFrameUrl(url: unknown): boolean {
  if (url === 'about:srcdoc') return true;
  return onSandboxOrigin(parseUrl(url));
}

/** Serves the scheme on the session the window uses (after the app is ready). */
export function registerAppSandboxProtocol(protocol: Pick<Protocol, 'handle'>, location: AppLocation): void {
  protocol.handle(APP_SANDBOX_SCHEME, (request) => {
    const answer = appSandboxProtocolResponse(request.method, request.url, location);
    return new Response(request.method === 'HEAD' ? null : answer.body, {
      status: answer.status,
      headers: answer.headers,
    });
  });
}
