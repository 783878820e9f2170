/**
 * The guards every webContents and the session get, in one place (as Signal Desktop's
 * handleCommonWindowEvents). Electron appears here only as types, so the guards are tested in
 * plain Node with event-emitter doubles; main.ts passes the real objects.
 */
import type { Session, WebContents } from 'electron';
import type { AppLocation } from './appLocation.js';
import { cspFor, cspHeaders } from './csp.js';
import { isAllowedNavigation, isSafeExternalUrl } from './navigation.js';
import { isAppSandboxFrameUrl } from './appSandboxProtocol.js';

export interface HardenOptions {
  location: AppLocation;
  /** shell.openExternal; called only with URLs isSafeExternalUrl accepted. */
  openExternal(url: string): Promise<void>;
  log?: (message: string) => void;
}

/** The window's WebRTC IP-handling policy (the app itself uses no WebRTC). */
const WEBRTC_IP_HANDLING_POLICY = 'disable_non_proxied_udp' as const;

type NavigationEvent = { preventDefault(): void; url: string };

export function hardenWebContents(contents: WebContents, options: HardenOptions): void {
  const { location, log } = options;
  // WebRTC sends UDP wherever a page's ICE servers say, and no CSP governs it: an MCP App (a frame of
  // this webContents) could use it to reach the network. No UDP unless through a proxy — the strictest
  // policy Electron offers; the apps' realm guard (core/appRealmGuard.ts) takes RTCPeerConnection away too.
  contents.setWebRTCIPHandlingPolicy(WEBRTC_IP_HANDLING_POLICY);
  const block = (kind: string, event: NavigationEvent) => {
    if (isAllowedNavigation(event.url, location)) return;
    event.preventDefault();
    log?.(`Blocked a ${kind} to a page outside the app.`);
  };
  contents.on('will-navigate', (event) => block('navigation', event));
  contents.on('will-redirect', (event) => block('redirect', event));
  // Subframes: the CSP allows only the MCP Apps sandbox's frames; this is the second lock.
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame && !isAppSandboxFrameUrl(event.url)) block('frame navigation', event);
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    log?.('Blocked a <webview>.');
  });
  // No new windows, ever. A link meant for the user's browser goes there if it is plain http(s).
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) {
      options.openExternal(url).catch(() => log?.('Could not open a link in the browser.'));
    } else {
      log?.('Blocked a new window (not an http(s) link).');
    }
    return { action: 'deny' };
  });
}

export function hardenSession(session: Session, location: AppLocation): void {
  // The app needs no camera, microphone, notifications, geolocation, clipboard reading, USB, …
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
  const policy = cspFor(location);
  session.webRequest.onHeadersReceived((details, callback) => {
    // The apps' sandbox proxy carries its own (the app's) policy; every other response gets the page's.
    if (isAppSandboxFrameUrl(details.url)) return callback({});
    callback({ responseHeaders: cspHeaders(details.responseHeaders, policy) });
  });
}
