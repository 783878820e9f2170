import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import type { Session, WebContents } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { resolveAppLocation } from '../../electron/shell/appLocation.js';
import { CONTENT_SECURITY_POLICY } from '../../electron/shell/csp.js';
import { hardenSession, hardenWebContents } from '../../electron/shell/harden.js';

const INDEX = '/app/out/renderer/index.html';
const PAGE = pathToFileURL(INDEX).href;
const location = resolveAppLocation({ isPackaged: true, devServerUrl: undefined, rendererIndexFile: INDEX });

/** A WebContents double: an emitter plus the window-open handler slot. */
class FakeContents extends EventEmitter {
  openHandler?: (details: { url: string }) => { action: string };
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
    this.openHandler = handler;
  }
  webRtcIpHandlingPolicy?: string;
  setWebRTCIPHandlingPolicy(policy: string) {
    this.webRtcIpHandlingPolicy = policy;
  }
}

function navigation(url: string, extra: Record<string, unknown> = {}) {
  return { url, preventDefault: vi.fn(), ...extra };
}

function harden() {
  const contents = new FakeContents();
  const openExternal = vi.fn(async (_url: string) => undefined);
  hardenWebContents(contents as unknown as WebContents, { location, openExternal, log: () => undefined });
  return { contents, openExternal };
}

describe('hardenWebContents', () => {
  it('sends no WebRTC UDP except through a proxy (an MCP App frame could name any STUN/TURN server)', () => {
    const { contents } = harden();
    expect(contents.webRtcIpHandlingPolicy).toBe('disable_non_proxied_udp');
  });

  it.each(['will-navigate', 'will-redirect'])('%s: allows the app page, prevents everything else', (eventName) => {
    const { contents } = harden();
    const inside = navigation(`${PAGE}#/x`);
    contents.emit(eventName, inside);
    expect(inside.preventDefault).not.toHaveBeenCalled();
    for (const url of ['https://evil.example/', 'file:///etc/passwd', 'javascript:alert(1)', 'about:blank']) {
      const outside = navigation(url);
      contents.emit(eventName, outside);
      expect(outside.preventDefault).toHaveBeenCalled();
    }
  });

  it('will-frame-navigate: prevents subframes leaving the app (the main frame is will-navigate’s)', () => {
    const { contents } = harden();
    const sub = navigation('https://evil.example/', { isMainFrame: false });
    contents.emit('will-frame-navigate', sub);
    expect(sub.preventDefault).toHaveBeenCalled();
  });

  it('will-attach-webview: always prevented', () => {
    const { contents } = harden();
    const event = { preventDefault: vi.fn() };
    contents.emit('will-attach-webview', event, {}, {});
    expect(event.preventDefault).toHaveBeenCalled();
  });

  it('denies every new window, opening only http(s) links externally', () => {
    const { contents, openExternal } = harden();
    expect(contents.openHandler?.({ url: 'https://modelcontextprotocol.io/' })).toEqual({ action: 'deny' });
    expect(openExternal).toHaveBeenCalledWith('https://modelcontextprotocol.io/');
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://host/share',
      'https://u:p@example.com/',
      PAGE,
    ]) {
      expect(contents.openHandler?.({ url })).toEqual({ action: 'deny' });
    }
    expect(openExternal).toHaveBeenCalledTimes(1);
  });

  it('a failing openExternal does not throw out of the handler', async () => {
    const contents = new FakeContents();
    const log = vi.fn();
    hardenWebContents(contents as unknown as WebContents, {
      location,
      openExternal: () => Promise.reject(new Error('no browser')),
      log,
    });
    expect(contents.openHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    await vi.waitFor(() => expect(log).toHaveBeenCalledWith('Could not open a link in the browser.'));
  });
});

describe('hardenSession', () => {
  function fakeSession() {
    const handlers: Record<string, (...args: never[]) => unknown> = {};
    const session = {
      setPermissionRequestHandler: (h: (...args: never[]) => unknown) => (handlers['request'] = h),
      setPermissionCheckHandler: (h: (...args: never[]) => unknown) => (handlers['check'] = h),
      setDevicePermissionHandler: (h: (...args: never[]) => unknown) => (handlers['device'] = h),
      webRequest: { onHeadersReceived: (h: (...args: never[]) => unknown) => (handlers['headers'] = h) },
    };
    hardenSession(session as unknown as Session, location);
    return handlers as Record<string, (...args: unknown[]) => unknown>;
  }

  it('denies every permission request, check and device', () => {
    const handlers = fakeSession();
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'unknown']) {
      const callback = vi.fn();
      handlers['request']?.({}, permission, callback, {});
      expect(callback).toHaveBeenCalledWith(false);
      expect(handlers['check']?.(null, permission, 'file://', {})).toBe(false);
    }
    expect(handlers['device']?.({})).toBe(false);
  });

  it('puts the CSP on every response', () => {
    const handlers = fakeSession();
    const callback = vi.fn();
    handlers['headers']?.(
      { responseHeaders: { 'content-security-policy': ['default-src *'], 'Content-Type': ['text/html'] } },
      callback,
    );
    expect(callback).toHaveBeenCalledWith({
      responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] },
    });
  });
});
