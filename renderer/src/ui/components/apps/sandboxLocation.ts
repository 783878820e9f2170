/**
 * Where this page frames MCP Apps: the sandbox proxy on an origin other than its own. Browser
 * mode's host names its sandbox origin in a meta tag of the page it serves; in Electron it is the
 * dedicated `mh-app-sandbox:` scheme. Without either (a page from elsewhere) no app is shown.
 */
import {
  APP_SANDBOX_META_NAME,
  APP_SANDBOX_PROXY_PATH,
  ELECTRON_APP_SANDBOX_ORIGIN,
} from '../../../../../shared/appSandbox.js';
import type { AppCsp } from '../../../../../shared/contract.js';
import { findPreloadApi } from '../../../bridge/electronTransport.js';

export function appSandboxOrigin(): string | undefined {
  const meta = document.querySelector<HTMLMetaElement>(`meta[name="${APP_SANDBOX_META_NAME}"]`)?.content;
  if (meta && /^http:\/\/(127\.0\.0\.1|localhost):\d+$/.test(meta)) return meta;
  return findPreloadApi() ? ELECTRON_APP_SANDBOX_ORIGIN : undefined;
}

function base64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The proxy page for one app: its CSP wishes ride in the URL, and the sandbox origin serves them as the page's policy. */
export function proxyUrlOf(origin: string, csp: AppCsp): string {
  return `${origin}${APP_SANDBOX_PROXY_PATH}?csp=${base64Url(JSON.stringify(csp))}`;
}
