/**
 * Where the app's own page lives, and whether a URL is that page. Every trust decision in the
 * shell (navigation, IPC sender, event delivery) asks `isAppUrl`, so there is one definition.
 *
 * - Production: the built renderer, `file:///…/out/renderer/index.html`. File URLs have an
 *   opaque origin ("null"), which any file or data: page shares, so the check is the exact file,
 *   not the origin.
 * - Development: the electron-vite dev server (ELECTRON_RENDERER_URL), honoured only when the
 *   app is not packaged and only on a loopback http origin — an environment variable must never
 *   point an installed app at a remote page that would then get the IPC bridge.
 */
import { pathToFileURL } from 'node:url';

export type AppLocation =
  | { kind: 'file'; /** The file URL to load. */ url: string; /** The index file's path. */ file: string }
  | { kind: 'dev'; url: string; origin: string };

export interface AppLocationInput {
  isPackaged: boolean;
  /** process.env.ELECTRON_RENDERER_URL, set by `electron-vite dev`. */
  devServerUrl: string | undefined;
  /** Absolute path of out/renderer/index.html. */
  rendererIndexFile: string;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function resolveAppLocation(input: AppLocationInput): AppLocation {
  if (!input.isPackaged && input.devServerUrl) {
    const dev = parseUrl(input.devServerUrl);
    if (!dev || dev.protocol !== 'http:' || !LOOPBACK_HOSTS.has(dev.hostname) || dev.username || dev.password) {
      throw new Error(
        'ELECTRON_RENDERER_URL must be a loopback http URL (the electron-vite dev server); unset it to load the built renderer.',
      );
    }
    return { kind: 'dev', url: dev.href, origin: dev.origin };
  }
  return { kind: 'file', url: pathToFileURL(input.rendererIndexFile).href, file: input.rendererIndexFile };
}

/** True when `url` is the app's own page (any query or fragment: the renderer routes with them). */
export function isAppUrl(url: unknown, location: AppLocation): boolean {
  const parsed = parseUrl(url);
  if (!parsed) return false;
  if (location.kind === 'dev') return parsed.origin === location.origin && !parsed.username && !parsed.password;
  const expected = new URL(location.url);
  return parsed.protocol === 'file:' && parsed.host === expected.host && samePath(parsed.pathname, expected.pathname);
}

function samePath(a: string, b: string): boolean {
  // Percent-encoding differs between encoders (Electron's loadFile vs pathToFileURL); compare decoded.
  const da = safeDecode(a);
  const db = safeDecode(b);
  if (da === undefined || db === undefined) return false;
  // Windows and macOS file systems are case-insensitive by default.
  return process.platform === 'linux' ? da === db : da.toLowerCase() === db.toLowerCase();
}

function safeDecode(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

export function parseUrl(url: unknown): URL | undefined {
  if (typeof url !== 'string' || url.length === 0 || url.length > 8192) return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
