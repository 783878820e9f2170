/**
 * The MCP Apps sandbox proxy: the one page (and its script) the sandbox origin serves, in browser
 * mode (electron/web/sandboxOrigin.ts, a second loopback port) and in Electron (the
 * `mh-app-sandbox:` protocol, electron/shell/appSandboxProtocol.ts). Pure: a request in, a
 * response out.
 *
 * The host page frames `<origin>/proxy?csp=<base64url JSON of the resource's ui.csp>` with
 * sandbox="allow-scripts" (an opaque origin, never the host's). The proxy announces
 * `ui/notifications/sandbox-proxy-ready`, takes the app's HTML from
 * `ui/notifications/sandbox-resource-ready`, puts it in an inner srcdoc iframe (sandbox
 * "allow-scripts allow-forms": no same origin, no top navigation, no popups) and relays JSON-RPC
 * between the host page and the app, nothing else. An app that takes its frame to another page
 * (which its CSP cannot stop) is removed, and the host asked to close it.
 *
 * The app's policy is this response's CSP header: a srcdoc document inherits the policy of the
 * page that made it, so the app cannot shed it; the proxy also writes it into the app's head as a
 * meta tag. Default: nothing from the network (no connect, no frames, no remote scripts, styles,
 * images or fonts), only the inline script and style an app bundles; `ui.csp` adds the origins
 * the resource declares, each checked to be a plain http(s)/ws(s) origin by the same schema main
 * reads the resource with (shared/contract/apps.ts CspSourceSchema).
 */

import {
  APP_SANDBOX_PROXY_PATH as PROXY_PATH,
  APP_SANDBOX_SCRIPT_PATH as PROXY_SCRIPT_PATH,
} from '../../shared/appSandbox.js';
import type { AppCspKey } from '../../shared/contract/apps.js';
import { APP_CSP_KEYS, CspSourceSchema } from '../../shared/contract/apps.js';
import { APP_REALM_GUARD_SCRIPT } from './appRealmGuard.js';

/** A resource's `ui.csp` (the MCP Apps schema's McpUiResourceCsp), after validation: every field, each a list. */
export type AppCsp = Record<AppCspKey, string[]>;

const EMPTY_CSP = Object.fromEntries(APP_CSP_KEYS.map((key) => [key, []])) as unknown as AppCsp;
const MAX_DOMAINS = 32;
const MAX_CSP_PARAM_CHARS = 16_384;

/** The sources main's reader (electron/apps/appResource.ts) keeps, and only those: the same schema. */
function originsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const valid = value.filter((source): source is string => CspSourceSchema.safeParse(source).success);
  return [...new Set(valid.map((source) => source.toLowerCase()))].slice(0, MAX_DOMAINS);
}

/** The `csp` query parameter → the declared origins; anything malformed counts as not declared. */
export function parseAppCspParam(param: string | null): AppCsp {
  if (!param || param.length > MAX_CSP_PARAM_CHARS) return EMPTY_CSP;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(param, 'base64url').toString('utf8'));
  } catch {
    return EMPTY_CSP;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return EMPTY_CSP;
  const csp = value as Record<string, unknown>;
  return Object.fromEntries(APP_CSP_KEYS.map((key) => [key, originsOf(csp[key])])) as unknown as AppCsp;
}

function orNone(sources: string[]): string {
  return sources.length > 0 ? sources.join(' ') : "'none'";
}

/** The app's own policy: what its meta tag carries (the header adds the proxy's script and who may frame it). */
export function appPolicy(csp: AppCsp): string {
  const resources = csp.resourceDomains.join(' ');
  const withResources = (base: string) => (resources ? `${base} ${resources}` : base);
  return [
    "default-src 'none'",
    withResources("script-src 'unsafe-inline'"),
    withResources("style-src 'unsafe-inline'"),
    withResources('img-src data: blob:'),
    withResources('font-src data:'),
    withResources('media-src data: blob:'),
    `connect-src ${orNone(csp.connectDomains)}`,
    `frame-src ${orNone(csp.frameDomains)}`,
    "worker-src 'none'",
    "object-src 'none'",
    `base-uri ${orNone(csp.baseUriDomains)}`,
    "form-action 'none'",
    // CSP3's WebRTC switch: Chromium (156) does not implement it yet; the realm guard does the work.
    "webrtc 'block'",
  ].join('; ');
}

/**
 * The proxy page's header: the app's policy (which its srcdoc inherits), plus the proxy's own
 * script by exact URL, and only the host page may frame it.
 */
function proxyPolicy(csp: AppCsp, sandboxOrigin: string, frameAncestors: readonly string[]): string {
  const own = `${sandboxOrigin}${PROXY_SCRIPT_PATH}`;
  const app = appPolicy(csp).replace("script-src 'unsafe-inline'", `script-src ${own} 'unsafe-inline'`);
  return `${app}; frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function proxyHtml(policy: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta name="mh-app-policy" content="${escapeAttribute(policy)}">
<style>html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}iframe{border:0;width:100%;height:100%;display:block}</style>
<title>App sandbox</title></head>
<body><script src="${PROXY_SCRIPT_PATH}"></script></body></html>`;
}

/**
 * The relay. Host → app: only messages whose source is the parent (the host page); app → host:
 * only messages whose source is the inner frame. The resource arrives once; the inner frame's
 * sandbox is fixed here (a host-supplied override is ignored).
 */
const PROXY_SCRIPT = `(() => {
  'use strict';
  if (window.parent === window || location.protocol === 'about:') return;
  const READY = 'ui/notifications/sandbox-proxy-ready';
  const RESOURCE = 'ui/notifications/sandbox-resource-ready';
  const policyMeta = document.querySelector('meta[name="mh-app-policy"]');
  const policy = policyMeta ? policyMeta.getAttribute('content') || '' : '';
  let inner = null;
  const isRpc = (data) => data !== null && typeof data === 'object' && data.jsonrpc === '2.0';
  const escape = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  // Runs before any script of the app: WebRTC, which no CSP governs in Chromium, is taken away (appRealmGuard.ts).
  const guard = ${JSON.stringify(APP_REALM_GUARD_SCRIPT)};
  function withPolicy(html) {
    const meta = '<meta http-equiv="Content-Security-Policy" content="' + escape(policy) + '"><script>' + guard + '</script>';
    const doctype = /^\\s*<!doctype[^>]*>/i.exec(html);
    return doctype ? doctype[0] + meta + html.slice(doctype[0].length) : meta + html;
  }
  let ended = false;
  function load(params) {
    if (inner || ended || !params || typeof params.html !== 'string') return;
    inner = document.createElement('iframe');
    inner.setAttribute('sandbox', 'allow-scripts allow-forms');
    inner.setAttribute('title', 'App');
    let loads = 0;
    inner.addEventListener('load', () => {
      // The app's page loads once. A second load is the app taking its frame to another page,
      // out of its CSP: that page is removed before it can talk, and the host asked to close the app.
      loads += 1;
      if (loads < 2 || !inner) return;
      inner.remove();
      inner = null;
      ended = true;
      const note = document.createElement('p');
      note.textContent = 'The app left its page and was stopped.';
      document.body.appendChild(note);
      window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/request-teardown', params: {} }, '*');
    });
    inner.srcdoc = withPolicy(params.html);
    document.body.appendChild(inner);
  }
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (!isRpc(data)) return;
    if (event.source === window.parent) {
      if (data.method === RESOURCE) return load(data.params);
      if (inner && inner.contentWindow) inner.contentWindow.postMessage(data, '*');
      return;
    }
    if (inner && event.source === inner.contentWindow) window.parent.postMessage(data, '*');
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: READY, params: {} }, '*');
})();
`;

export interface SandboxResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface SandboxPageOptions {
  /** This sandbox's own origin (`http://127.0.0.1:<port>`, `mh-app-sandbox://proxy`). */
  sandboxOrigin: string;
  /** Who may frame the proxy: the host page's origins (CSP source expressions). */
  frameAncestors: readonly string[];
}

const COMMON_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** The answer to one GET/HEAD on the sandbox origin: the proxy page, its script, or 404. */
export function sandboxResponse(url: URL, options: SandboxPageOptions): SandboxResponse {
  if (url.pathname === PROXY_PATH) {
    const csp = parseAppCspParam(url.searchParams.get('csp'));
    return {
      status: 200,
      headers: {
        ...COMMON_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': proxyPolicy(csp, options.sandboxOrigin, options.frameAncestors),
      },
      body: proxyHtml(appPolicy(csp)),
    };
  }
  if (url.pathname === PROXY_SCRIPT_PATH) {
    return {
      status: 200,
      headers: {
        ...COMMON_HEADERS,
        'Content-Type': 'text/javascript; charset=utf-8',
        'Content-Security-Policy': "default-src 'none'",
      },
      body: PROXY_SCRIPT,
    };
  }
  return {
    status: 404,
    headers: {
      ...COMMON_HEADERS,
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'",
    },
    body: 'Not found',
  };
}
