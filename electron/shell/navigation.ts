/**
 * Navigation and link rules (one place, as Signal Desktop's handleCommonWindowEvents): the window
 * may only ever show the app's own page; links the page opens go to the user's browser, and only
 * if they are plain http(s) URLs.
 */
import type { AppLocation } from './appLocation.js';
import { isAppUrl, parseUrl } from './appLocation.js';

/** will-navigate / will-redirect / will-frame-navigate: allowed only to the app's own page. */
export function isAllowedNavigation(url: unknown, location: AppLocation): boolean {
  return isAppUrl(url, location);
}

/**
 * Whether a URL may be handed to the OS (shell.openExternal). Only http and https: other
 * schemes reach local handlers (file:, smb:, custom app protocols) that can run code.
 * Credentials in the URL are refused (phishing: `https://good.com@evil.com`).
 */
export function isSafeExternalUrl(url: unknown): boolean {
  const parsed = parseUrl(url);
  if (!parsed) return false;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (parsed.username || parsed.password) return false;
  return parsed.hostname.length > 0;
}
