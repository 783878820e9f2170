/**
 * The one Content Security Policy of the app's page, for every way it is delivered: the Electron
 * session's response header (electron/shell/csp.ts), the meta tag in renderer/index.html (what
 * applies to the file:// load; test/shell/cspSource.test.ts and the built-bundle checks keep it
 * equal to META_CONTENT_SECURITY_POLICY), and browser mode's header and served meta
 * (electron/web/host.ts), which add only the bridge's WebSocket address.
 *
 * The page talks to main only through the preload (or the bridge), so it needs nothing from the
 * network: scripts, styles, fonts and images come from the app itself; no eval, no plugins, no
 * frames but MCP Apps' sandbox proxy (shared/appSandbox.ts), no workers, no <base> rewriting, no
 * form posts, and nothing may frame the page.
 */
export type CspDirectives = Readonly<Record<string, readonly string[]>>;

export const PRODUCTION_CSP_DIRECTIVES: CspDirectives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  // Audio results of tools arrive as base64 data: URLs.
  'media-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'worker-src': ["'none'"],
  'object-src': ["'none'"],
  // MCP Apps: only the sandbox proxy's frames (Electron's scheme; browser mode names its port).
  'frame-src': ['mh-app-sandbox://proxy'],
  'child-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/** Directives a <meta> policy cannot carry (browsers ignore them there, with a console error). */
export const HEADER_ONLY_CSP_DIRECTIVES: readonly string[] = ['frame-ancestors', 'report-uri', 'sandbox'];

export function serializeCsp(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/** The same policy without what a meta tag cannot carry. */
export function metaCspOf(directives: CspDirectives): string {
  return serializeCsp(
    Object.fromEntries(Object.entries(directives).filter(([name]) => !HEADER_ONLY_CSP_DIRECTIVES.includes(name))),
  );
}

/** The production policy as a response header. */
export const CONTENT_SECURITY_POLICY = serializeCsp(PRODUCTION_CSP_DIRECTIVES);
/** The production policy as renderer/index.html's meta tag carries it. */
export const META_CONTENT_SECURITY_POLICY = metaCspOf(PRODUCTION_CSP_DIRECTIVES);

/**
 * Browser mode: the production policy plus the bridge's WebSocket on the host's own port (CSP 3
 * lets 'self' match it, older engines do not), and frames from the MCP Apps sandbox origin only.
 */
export function browserModeCspDirectives(port: number, appSandboxOrigin?: string): CspDirectives {
  const directives = {
    ...PRODUCTION_CSP_DIRECTIVES,
    'connect-src': ["'self'", `ws://127.0.0.1:${port}`, `ws://localhost:${port}`],
  };
  // MCP Apps: the only frames are the sandbox proxy's, on its own loopback origin (electron/web/sandboxOrigin.ts).
  return appSandboxOrigin ? { ...directives, 'frame-src': [appSandboxOrigin] } : directives;
}

const CSP_META = /(<meta\s+http-equiv="Content-Security-Policy"\s+content=")([^"]*)("\s*\/?>)/i;

/** The policy of a page's CSP meta tag, or undefined when it has none. */
export function cspMetaOf(html: string): string | undefined {
  return CSP_META.exec(html)?.[2];
}

/** The page with its CSP meta tag's policy replaced (a page without one is returned as is). */
export function withCspMeta(html: string, policy: string): string {
  return html.replace(CSP_META, (_match, start: string, _old: string, end: string) => `${start}${policy}${end}`);
}
