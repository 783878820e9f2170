// What `npm start` does before it opens the Electron window: find the Electron binary, running
// Electron's own installer when it is missing (Electron 45 downloads its binary on first use, not
// at `npm install`). The database module needs nothing here: better-sqlite3 13 is a Node-API addon
// whose prebuilt binary loads in Node and Electron alike. Where the binary cannot be had (no
// display, offline, a Node.js too old for Electron's tooling, a failed download), the answer is
// browser mode with a one-line reason. The decisions themselves are pure functions in
// startDecision.mjs; this file runs the installer as a child process (its progress goes to the
// terminal) and probes the network. Tested in test/shell/prepareLaunch.test.ts with a fake installer.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { electronDownloadHost, electronEnv, findElectronBinary, hasDisplay, setupBlocker, usesProxy } from './startDecision.mjs';

/** How long the network probe waits for a connection to the download host. */
export const PROBE_TIMEOUT_MS = 4_000;

/**
 * @typedef {{ mode: 'electron', electronPath: string } | { mode: 'browser', reason: string }} LaunchPlan
 * @typedef {{
 *   root: string,
 *   platform: string,
 *   arch: string,
 *   env: Record<string, string | undefined>,
 *   nodeVersion: string,
 *   installerScript?: string,
 *   probeTimeoutMs?: number,
 *   log?: (line: string) => void,
 * }} PrepareInput
 */

/**
 * @param {PrepareInput} input
 * @returns {Promise<LaunchPlan>}
 */
export async function prepareLaunch(input) {
  const { root, platform, env } = input;
  const log = input.log ?? ((line) => console.log(line));
  const probe = { root, env, exists: existsSync, readText };
  if (env.MINIHARNESS_MODE === 'browser') return browser('browser mode requested (MINIHARNESS_MODE=browser)');
  if (!hasDisplay(platform, env)) return browser('no display for a window (neither DISPLAY nor WAYLAND_DISPLAY is set)');

  // Asked at most once, and only when something has to be downloaded or built.
  /** @type {Promise<string | undefined> | undefined} */
  let blocker;
  const whyNotSetUp = () => (blocker ??= findSetupBlocker(input));

  let binary = findElectronBinary(probe);
  if ('reason' in binary) {
    const blocked = await whyNotSetUp();
    if (blocked) return browser(`Electron runtime not available (${binary.reason}); ${blocked}`);
    const electronPackage = join(root, 'node_modules', 'electron');
    const version = packageVersion(electronPackage);
    log(`MiniHarness: downloading Electron${version ? ` ${version}` : ''} with its own installer (node_modules/electron/install.js)…`);
    const run = await runNode(input.installerScript ?? join(electronPackage, 'install.js'), [], { cwd: root, env: electronEnv(env) });
    if (!run.ok) return browser(`Electron's installer failed (${run.how}); run \`npx install-electron\` to see why`);
    binary = findElectronBinary(probe);
    if ('reason' in binary) return browser(`Electron's installer finished, but ${binary.reason}`);
  }

  return { mode: 'electron', electronPath: binary.path };
}

/** @param {string} reason @returns {LaunchPlan} */
function browser(reason) {
  return { mode: 'browser', reason };
}

/**
 * @param {PrepareInput} input
 * @returns {Promise<string | undefined>}
 */
async function findSetupBlocker({ env, nodeVersion, probeTimeoutMs }) {
  const blocked = setupBlocker({ nodeVersion, env });
  if (blocked) return blocked;
  if (usesProxy(env)) return undefined;
  const { host, port } = electronDownloadHost(env);
  const reachable = await canConnect(host, port, probeTimeoutMs ?? PROBE_TIMEOUT_MS);
  return reachable ? undefined : `offline (${host}:${port} cannot be reached)`;
}

/**
 * Whether a TCP connection to host:port opens within the time: the cheapest honest "online".
 * @param {string} host @param {number} port @param {number} timeoutMs
 * @returns {Promise<boolean>}
 */
export function canConnect(host, port, timeoutMs) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (/** @type {boolean} */ ok) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Runs a Node script with the terminal attached (its progress shows), and says how it ended.
 * @param {string} script @param {string[]} args
 * @param {{ cwd: string, env: Record<string, string | undefined> }} options
 * @returns {Promise<{ ok: true } | { ok: false, how: string }>}
 */
function runNode(script, args, { cwd, env }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', (error) => resolve({ ok: false, how: error.message }));
    child.once('exit', (code, signal) => {
      if (code === 0) resolve({ ok: true });
      else resolve({ ok: false, how: signal ? `stopped by ${signal}` : `exit code ${code}` });
    });
  });
}

/** @param {string} packageDir @returns {string | undefined} */
function packageVersion(packageDir) {
  const text = readText(join(packageDir, 'package.json'));
  try {
    return text === undefined ? undefined : JSON.parse(text).version;
  } catch {
    return undefined;
  }
}

/** @param {string} path @returns {string | undefined} */
function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
