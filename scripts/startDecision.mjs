// The decisions `npm start` makes, as pure functions (tested in test/shell/startDecision.test.ts):
// whether the build is stale, whether Electron can run here, whether its first-run setup (the
// binary download, the native module for Electron) may be tried, and whether an Electron that
// exited should hand over to browser mode, and what to tell the person when it cannot run (the
// Linux sandbox helper among them). scripts/start.mjs and scripts/prepareLaunch.mjs do the I/O.
import { dirname, join } from 'node:path';

/** The files a complete build leaves in out/ (electron.vite.config.ts). */
export const BUILD_OUTPUTS = ['out/main/main.js', 'out/preload/preload.cjs', 'out/renderer/index.html'];
/**
 * What the build reads; a change to any of them means rebuilding: the sources the bundles inline
 * (electron/, shared/, renderer/, and scripts/ and bin/ should main ever import from them —
 * test/shell/startDecision.test.ts checks every file esbuild bundles is under one of these), the
 * build's config, and the TypeScript configs esbuild reads for its transform.
 */
export const BUILD_INPUTS = [
  'electron',
  'shared',
  'renderer',
  'scripts',
  'bin',
  'electron.vite.config.ts',
  'package.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'tsconfig.node.json',
  'tsconfig.web.json',
];
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

/** Why there is no window, and what would give one. */
export const NO_DISPLAY_REASON =
  'no display for a window (neither DISPLAY nor WAYLAND_DISPLAY is set; run npm start in a desktop session for the window)';
/** What to do after an offline first run. */
export const OFFLINE_HINT = 'connect and run npm start again (ELECTRON_MIRROR or an HTTPS proxy if GitHub is blocked)';

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
  if (!hasDisplay(input.platform, input.env)) return { mode: 'browser', reason: NO_DISPLAY_REASON };
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
  const parse = (/** @type {string} */ text) =>
    text
      .replace(/^v/, '')
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
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
    env.npm_config_electron_mirror ||
    env.NPM_CONFIG_ELECTRON_MIRROR ||
    env.npm_package_config_electron_mirror ||
    env.ELECTRON_MIRROR ||
    ELECTRON_DEFAULT_MIRROR;
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
  return Boolean(
    env.HTTPS_PROXY ||
    env.https_proxy ||
    env.npm_config_https_proxy ||
    env.GLOBAL_AGENT_HTTPS_PROXY ||
    env.ELECTRON_GET_USE_PROXY,
  );
}

/**
 * Why Electron's first-run setup (downloading the binary) must not be tried here before even
 * probing the network; undefined when it may be. `engines` is package.json's `engines.node`,
 * named beside Electron's own minimum so one upgrade fixes both.
 * @param {{ nodeVersion: string, env: Record<string, string | undefined>, engines?: string }} input
 * @returns {string | undefined}
 */
export function setupBlocker({ nodeVersion, env, engines }) {
  if (!nodeAtLeast(nodeVersion, ELECTRON_TOOLING_NODE)) {
    const project = engines ? `; the project asks for Node.js ${engines}` : '';
    return `setting it up needs Node.js ${ELECTRON_TOOLING_NODE} or later (this is Node.js ${nodeVersion.replace(/^v/, '')}${project})`;
  }
  if (env.npm_config_offline === 'true') return `offline (npm --offline); ${OFFLINE_HINT}`;
  return undefined;
}

/** The Linux switches that stop unprivileged processes from creating user namespaces. */
export const USERNS_SYSCTLS = {
  /** Ubuntu 23.10+ (AppArmor): 1 restricts them to programs with a profile that allows it. */
  apparmorRestrict: '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
  /** Debian's older switch: 0 forbids them. */
  usernsClone: '/proc/sys/kernel/unprivileged_userns_clone',
};

/** What the sandbox helper next to the Electron binary is: its owner and mode, or undefined when missing. */
/** @typedef {{ uid: number, mode: number } | undefined} HelperStat */

/**
 * The sysctl settings that restrict unprivileged user namespaces, as `name=value`; empty when
 * none does (the values as read from /proc, undefined where the file does not exist).
 * @param {{ apparmorRestrict: string | undefined, usernsClone: string | undefined }} sysctls
 * @returns {string[]}
 */
export function usernsRestrictions({ apparmorRestrict, usernsClone }) {
  const restrictions = [];
  if (apparmorRestrict?.trim() === '1') restrictions.push('kernel.apparmor_restrict_unprivileged_userns=1');
  if (usernsClone?.trim() === '0') restrictions.push('kernel.unprivileged_userns_clone=0');
  return restrictions;
}

/** Where Electron's setuid sandbox helper is: beside its binary. @param {string} electronPath */
export function sandboxHelperPath(electronPath) {
  return join(dirname(electronPath), 'chrome-sandbox');
}

/** Whether the helper is set up the way Chromium requires: owned by root, setuid, mode 4755. @param {HelperStat} helper */
export function helperIsSetUid(helper) {
  return helper !== undefined && helper.uid === 0 && (helper.mode & 0o7777) === 0o4755;
}

/**
 * The command that sets the helper up: what Chromium's own abort message asks for.
 * @param {string} helperPath an absolute path
 */
export function sandboxFixCommand(helperPath) {
  const quoted = /^[\w@%+=:,./-]+$/.test(helperPath) ? helperPath : `'${helperPath.replace(/'/g, `'\\''`)}'`;
  return `sudo chown root:root ${quoted} && sudo chmod 4755 ${quoted}`;
}

/**
 * Why Electron would abort at startup for want of a sandbox, decided before launching it:
 * on Linux, when unprivileged user namespaces are restricted (Ubuntu 23.10+ does by default),
 * Chromium falls back to the setuid helper `chrome-sandbox`, and the development binary in
 * node_modules aborts unless that helper is owned by root with mode 4755. Undefined when it can
 * start. The answer names the fix; never --no-sandbox (the app's renderers stay sandboxed).
 * @param {{ platform: string, apparmorRestrict: string | undefined, usernsClone: string | undefined, helperPath: string, helper: HelperStat }} input
 * @returns {string | undefined}
 */
export function sandboxBlocker({ platform, apparmorRestrict, usernsClone, helperPath, helper }) {
  if (platform !== 'linux') return undefined;
  const restrictions = usernsRestrictions({ apparmorRestrict, usernsClone });
  if (restrictions.length === 0 || helperIsSetUid(helper)) return undefined;
  return sandboxAdvice(
    helperPath,
    helper === undefined ? 'is missing' : 'is not owned by root with mode 4755',
    restrictions.join(', '),
  );
}

/**
 * @param {string} helperPath @param {string} problem @param {string} [cause]
 */
function sandboxAdvice(helperPath, problem, cause) {
  const why = cause ? `this Linux restricts unprivileged user namespaces (${cause}), so ` : '';
  return (
    `Electron's sandbox cannot start: ${why}its sandbox helper ${helperPath} ${problem}; ` +
    `fix it with \`${sandboxFixCommand(helperPath)}\` and run npm start again ` +
    `(an installed .deb brings an AppArmor profile and needs none of this)`
  );
}

/** Chromium's messages when it aborts for want of a sandbox (the setuid helper, or no usable one). */
const SANDBOX_ABORT = /SUID sandbox helper binary|No usable sandbox|chrome-sandbox is owned by root/i;

/**
 * The one line for an Electron that failed at startup: what it said on stderr when that names
 * the sandbox helper (with the fix, for the helper Chromium names), else how it exited.
 * @param {{ code: number | null, signal: string | null, stderrTail: string, electronPath: string }} exit
 */
export function failedStartReason({ code, signal, stderrTail, electronPath }) {
  const how = signal ? `signal ${signal}` : `exit code ${code}`;
  if (SANDBOX_ABORT.test(stderrTail)) {
    // Chromium names the helper it found; else it is the one beside the binary.
    const named = /make sure that (\S+chrome-sandbox) is owned by root/.exec(stderrTail)?.[1];
    return sandboxAdvice(
      named ?? sandboxHelperPath(electronPath),
      `is not set up (Electron exited at startup, ${how})`,
    );
  }
  return `Electron exited at startup (${how}); its messages are above`;
}

/**
 * Keeps the last `limit` characters of a stream's text, to read after it ended.
 * @param {number} limit
 */
export function tailKeeper(limit) {
  let text = '';
  return {
    /** @param {string} chunk */
    add(chunk) {
      text = (text + chunk).slice(-limit);
    },
    get text() {
      return text;
    },
  };
}
