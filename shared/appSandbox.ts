/**
 * Where MCP Apps run, as both sides name it: the sandbox origin's proxy page path, Electron's
 * dedicated scheme, and the meta tag through which browser mode's host tells its page the
 * sandbox origin (a second loopback port, known only once the host listens).
 */

/** Electron's sandbox scheme (electron/shell/appSandboxProtocol.ts): an origin no page of the app has. */
export const APP_SANDBOX_SCHEME = 'mh-app-sandbox';
export const ELECTRON_APP_SANDBOX_ORIGIN = `${APP_SANDBOX_SCHEME}://proxy`;

export const APP_SANDBOX_PROXY_PATH = '/proxy';
export const APP_SANDBOX_SCRIPT_PATH = '/proxy.js';

export const APP_SANDBOX_META_NAME = 'mh-app-sandbox';

/** The page with a `<meta name="mh-app-sandbox">` naming the sandbox origin, right after <head> (no origin: unchanged). */
export function withAppSandboxMeta(html: string, origin: string | undefined): string {
  if (!origin || !/^[a-z][a-z0-9+.-]*:\/\/[a-z0-9.:-]+$/i.test(origin)) return html;
  const tag = `<meta name="${APP_SANDBOX_META_NAME}" content="${origin}">`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => `${head}${tag}`) : `${tag}${html}`;
}
