// The decisions `npm start` makes, as pure functions (tested in test/shell/startDecision.test.ts):
// whether the build is stale, whether Electron can run here, and whether an Electron that exited
// should hand over to browser mode. scripts/start.mjs does the I/O.
import { join } from 'node:path';

/** The files a complete build leaves in out/ (electron.vite.config.ts). */
export const BUILD_OUTPUTS = ['out/main/main.js', 'out/preload/preload.cjs', 'out/renderer/index.html'];
/** What the build reads; a change to any of them means rebuilding. */
export const BUILD_INPUTS = ['electron', 'shared', 'renderer', 'electron.vite.config.ts', 'package.json'];
/** An Electron that exits with an error this soon after launch never opened a window. */
export const STARTUP_WINDOW_MS = 10_000;

/**
 * @param {{ outputMtimes: Array<number | undefined>, newestInputMtime: number }} input
 * @returns {boolean}
 */
export function isBuildStale({ outputMtimes, newestInputMtime }) {
  if (outputMtimes.length === 0 || outputMtimes.some((m) => m === undefined)) return true;
  return Math.min(.../** @type {number[]} */ (outputMtimes)) < newestInputMtime;
}

/**
 * Where the Electron binary is, found the way node_modules/electron/index.js finds it but
 * without requiring that module (it downloads the binary when missing).
 * @param {{ root: string, env: Record<string, string | undefined>, exists: (path: string) => boolean, readText: (path: string) => string | undefined }} input
 * @returns {{ path: string } | { reason: string }}
 */
export function findElectronBinary({ root, env, exists, readText }) {
  const moduleDir = join(root, 'node_modules', 'electron');
  if (!exists(join(moduleDir, 'package.json'))) return { reason: 'the electron package is not installed' };
  const named = readText(join(moduleDir, 'path.txt'))?.trim();
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const path = join(override, named || 'electron');
    return exists(path) ? { path } : { reason: `no binary at ELECTRON_OVERRIDE_DIST_PATH (${path})` };
  }
  if (!named) return { reason: 'no binary in node_modules/electron' };
  const path = join(moduleDir, 'dist', named);
  return exists(path) ? { path } : { reason: 'the binary named in node_modules/electron/path.txt is missing' };
}

/**
 * @param {string} platform
 * @param {Record<string, string | undefined>} env
 */
export function hasDisplay(platform, env) {
  if (platform !== 'linux') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/**
 * @param {{ root: string, platform: string, env: Record<string, string | undefined>, exists: (path: string) => boolean, readText: (path: string) => string | undefined }} input
 * @returns {{ mode: 'electron', electronPath: string } | { mode: 'browser', reason: string }}
 */
export function decideLaunch(input) {
  const requested = input.env.MINIHARNESS_MODE;
  if (requested === 'browser') return { mode: 'browser', reason: 'browser mode requested (MINIHARNESS_MODE=browser)' };
  const binary = findElectronBinary(input);
  if ('reason' in binary) return { mode: 'browser', reason: `Electron runtime not available (${binary.reason})` };
  if (!hasDisplay(input.platform, input.env)) return { mode: 'browser', reason: 'no display for a window (neither DISPLAY nor WAYLAND_DISPLAY is set)' };
  return { mode: 'electron', electronPath: binary.path };
}

/**
 * Whether an Electron process that exited should be replaced by browser mode: it failed (error
 * code or signal) right at startup, and not because the user interrupted it. A quick exit with
 * code 0 is a second instance handing over to the first, or the user closing the window.
 * @param {{ code: number | null, signal: string | null, elapsedMs: number, interrupted: boolean }} exit
 */
export function shouldFallBack({ code, signal, elapsedMs, interrupted }) {
  if (interrupted || elapsedMs > STARTUP_WINDOW_MS) return false;
  return (code !== null && code !== 0) || signal !== null;
}

/** @param {string} reason */
export function browserModeLine(reason) {
  return `MiniHarness: ${reason}; starting browser mode.`;
}

/**
 * The env for the Electron child: ELECTRON_RUN_AS_NODE would turn the binary into plain Node.
 * @param {Record<string, string | undefined>} env
 */
export function electronEnv(env) {
  const out = { ...env };
  delete out.ELECTRON_RUN_AS_NODE;
  return out;
}
