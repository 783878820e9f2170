/**
 * Electron's MCP Apps sandbox origin (electron/shell/appSandboxProtocol.ts): the scheme's
 * privileges, what it serves, and the window guards that let only its frames in — all in plain
 * Node with doubles for Electron's protocol, webContents and session.
 */
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import type { Protocol, Session, WebContents } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { resolveAppLocation } from '../../electron/shell/appLocation.js';
import {
  APP_SANDBOX_SCHEME_PRIVILEGES,
  appSandboxProtocolResponse,
  registerAppSandboxProtocol,
} from '../../electron/shell/appSandboxProtocol.js';
import { hardenSession, hardenWebContents } from '../../electron/shell/harden.js';
import { PRODUCTION_CSP_DIRECTIVES } from '../../shared/csp.js';
import { ELECTRON_APP_SANDBOX_ORIGIN } from '../../shared/appSandbox.js';

const INDEX = '/app/out/renderer/index.html';
const location = resolveAppLocation({ isPackaged: true, devServerUrl: undefined, rendererIndexFile: INDEX });
const devLocation = resolveAppLocation({
  isPackaged: false,
  devServerUrl: 'http://localhost:5173/',
  rendererIndexFile: INDEX,
});
const PROXY = `${ELECTRON_APP_SANDBOX_ORIGIN}/proxy`;

function directive(policy: string | undefined, name: string): string | undefined {
  return policy
    ?.split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${name} `));
}

describe('the mh-app-sandbox scheme', () => {
  it('is a standard, secure origin with no other privilege', () => {
    expect(APP_SANDBOX_SCHEME_PRIVILEGES).toEqual({
      scheme: 'mh-app-sandbox',
      privileges: {
        standard: true,
        secure: true,
        bypassCSP: false,
        allowServiceWorkers: false,
        supportFetchAPI: false,
        corsEnabled: false,
        stream: false,
        codeCache: false,
      },
    });
  });

  it('serves the proxy under the app’s restrictive policy, framed only by the app page', () => {
    const answer = appSandboxProtocolResponse('GET', PROXY, location);
    expect(answer.status).toBe(200);
    const policy = answer.headers['Content-Security-Policy'];
    expect(directive(policy, 'script-src')).toBe(`script-src ${ELECTRON_APP_SANDBOX_ORIGIN}/proxy.js 'unsafe-inline'`);
    expect(directive(policy, 'connect-src')).toBe("connect-src 'none'");
    expect(directive(policy, 'frame-ancestors')).toBe('frame-ancestors file:');
    expect(
      directive(
        appSandboxProtocolResponse('GET', PROXY, devLocation).headers['Content-Security-Policy'],
        'frame-ancestors',
      ),
    ).toBe('frame-ancestors http://localhost:5173');
    expect(appSandboxProtocolResponse('GET', `${ELECTRON_APP_SANDBOX_ORIGIN}/proxy.js`, location).status).toBe(200);
  });

  it('serves nothing else: other paths and hosts 404, other methods 405', () => {
    expect(appSandboxProtocolResponse('GET', `${ELECTRON_APP_SANDBOX_ORIGIN}/index.html`, location).status).toBe(404);
    expect(appSandboxProtocolResponse('GET', 'mh-app-sandbox://other/proxy', location).status).toBe(404);
    expect(appSandboxProtocolResponse('GET', 'not a url', location).status).toBe(404);
    expect(appSandboxProtocolResponse('POST', PROXY, location).status).toBe(405);
  });

  it('is handled with those answers once registered', async () => {
    let handler: ((request: Request) => Response) | undefined;
    const protocol = {
      handle: (scheme: string, h: (request: Request) => Response) => scheme === 'mh-app-sandbox' && (handler = h),
    };
    registerAppSandboxProtocol(protocol as unknown as Pick<Protocol, 'handle'>, location);
    const response = handler!(new Request(PROXY));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await response.text()).toContain('<script src="/proxy.js"></script>');
  });

  it('is the only frame source of the app page', () => {
    expect(PRODUCTION_CSP_DIRECTIVES['frame-src']).toEqual([ELECTRON_APP_SANDBOX_ORIGIN]);
  });
});

describe('window guards with apps', () => {
  class FakeContents extends EventEmitter {
    setWindowOpenHandler() {}
    setWebRTCIPHandlingPolicy() {}
  }
  const navigation = (url: string, isMainFrame: boolean) => ({ url, isMainFrame, preventDefault: vi.fn() });

  it('lets subframes load the sandbox proxy and the app’s srcdoc, and nothing else; the main frame never goes there', () => {
    const contents = new FakeContents();
    hardenWebContents(contents as unknown as WebContents, {
      location,
      openExternal: async () => undefined,
      log: () => undefined,
    });
    for (const url of [`${PROXY}?csp=e30`, 'about:srcdoc']) {
      const sub = navigation(url, false);
      contents.emit('will-frame-navigate', sub);
      expect(sub.preventDefault).not.toHaveBeenCalled();
    }
    for (const url of [
      'https://evil.example/',
      'mh-app-sandbox://other/proxy',
      'about:blank',
      pathToFileURL('/etc/passwd').href,
    ]) {
      const sub = navigation(url, false);
      contents.emit('will-frame-navigate', sub);
      expect(sub.preventDefault).toHaveBeenCalled();
    }
    const main = navigation(PROXY, true);
    contents.emit('will-navigate', main);
    expect(main.preventDefault).toHaveBeenCalled();
  });

  it('keeps the proxy’s own policy: the session does not put the page’s CSP on it', () => {
    let onHeaders: ((details: unknown, callback: (answer: unknown) => void) => void) | undefined;
    const session = {
      setPermissionRequestHandler: () => undefined,
      setPermissionCheckHandler: () => undefined,
      setDevicePermissionHandler: () => undefined,
      webRequest: { onHeadersReceived: (h: typeof onHeaders) => (onHeaders = h) },
    };
    hardenSession(session as unknown as Session, location);
    const callback = vi.fn();
    onHeaders?.({ url: PROXY, responseHeaders: { 'Content-Security-Policy': ["default-src 'none'"] } }, callback);
    expect(callback).toHaveBeenCalledWith({});
    const other = vi.fn();
    onHeaders?.({ url: 'https://example.com/', responseHeaders: {} }, other);
    expect(other.mock.calls[0]?.[0]).toHaveProperty('responseHeaders');
  });
});
