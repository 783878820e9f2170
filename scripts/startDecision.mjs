// The decisions `npm start` makes, as pure functions (tested in test/shell/startDecision.test.ts):
// whether the build is stale, whether Electron can run here, whether its first-run setup (the
// binary download, the native module for Electron) may be tried, and whether an Electron that
// exited should hand over to browser mode. scripts/start.mjs and scripts/prepareLaunch.mjs do the I/O.
import { join } from 'node:path';

/** The files a complete build leaves in out/ (electron.vite.config.ts). */
export const BUILD_OUTPUTS = ['out/main/main.js', 'out/preload/preload.cjs', 'out/renderer/index.html'];
/** What the build reads; a change to any of them means rebuilding. */
export const BUILD_INPUTS = ['electron', 'shared', 'renderer', 'electron.vite.config.ts', 'package.json'];
/** An Electron that exits with an error this soon after launch never opened a window. */
export const STARTUP_WINDOW_MS = 10_000;
/**
 * The Node.js that Electron's own tooling declares (`engines` of electron 45, @electron/get,
 * @electron/rebuild). The app itself runs on the Node inside Electron; the Node running
 * `npm start` only matters for downloading Electron and building the native module for it.
 */
export const ELECTRON_TOOLING_NODE = '22.12.0';
/** Where @electron/get downloads Electron from when no mirror is configured. */
export const ELECTRON_DEFAULT_MIRROR = 'https://github.com/electron/electron/releases/download/';

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

/**
 * Whether `version` (e.g. "v20.19.0" or "22.12.0") is at least `minimum`.
 * @param {string} version
 * @param {string} minimum
 */
export function nodeAtLeast(version, minimum) {
  const parse = (/** @type {string} */ text) => text.replace(/^v/, '').split('.').map((part) => Number.parseInt(part, 10) || 0);
  const have = parse(version);
  const need = parse(minimum);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) !== (need[i] ?? 0)) return (have[i] ?? 0) > (need[i] ?? 0);
  }
  return true;
}

/**
 * The host Electron's installer downloads from: the mirror settings @electron/get reads (npm
 * config, package.json config, ELECTRON_MIRROR), else GitHub.
 * @param {Record<string, string | undefined>} env
 * @returns {{ host: string, port: number }}
 */
export function electronDownloadHost(env) {
  const configured =
    env.npm_config_electron_mirror || env.NPM_CONFIG_ELECTRON_MIRROR || env.npm_package_config_electron_mirror || env.ELECTRON_MIRROR || ELECTRON_DEFAULT_MIRROR;
  let url;
  try {
    url = new URL(configured);
  } catch {
    url = new URL(ELECTRON_DEFAULT_MIRROR);
  }
  const port = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
}

/**
 * Whether downloads go through a proxy (then a direct connection says nothing about being online).
 * @param {Record<string, string | undefined>} env
 */
export function usesProxy(env) {
  return Boolean(env.HTTPS_PROXY || env.https_proxy || env.npm_config_https_proxy || env.GLOBAL_AGENT_HTTPS_PROXY || env.ELECTRON_GET_USE_PROXY);
}

/**
 * Why Electron's first-run setup (downloading the binary, building the native module) must not
 * be tried here before even probing the network; undefined when it may be.
 * @param {{ nodeVersion: string, env: Record<string, string | undefined> }} input
 * @returns {string | undefined}
 */
export function setupBlocker({ nodeVersion, env }) {
  if (!nodeAtLeast(nodeVersion, ELECTRON_TOOLING_NODE)) {
    return `setting it up needs Node.js ${ELECTRON_TOOLING_NODE} or later (this is Node.js ${nodeVersion.replace(/^v/, '')})`;
  }
  if (env.npm_config_offline === 'true') return 'offline (npm --offline)';
  return undefined;
}
