// What `npm start` does before it opens the Electron window: find the Electron binary, running
// Electron's own installer when it is missing (Electron 45 downloads its binary on first use, not
// at `npm install`). The database module needs nothing here: better-sqlite3 13 is a Node-API addon
// whose prebuilt binary loads in Node and Electron alike. Where the binary cannot be had (no
// display, offline, a Node.js too old for Electron's tooling, a failed download, a Linux that
// restricts user namespaces while Electron's sandbox helper is not set up), the answer is browser
// mode with a one-line reason. The decisions themselves are pure functions in startDecision.mjs;
// this file runs the installer as a child process (its progress goes to the terminal), probes the
// network, and reads the sysctls and the helper's owner and mode. Tested in
// test/shell/prepareLaunch.test.ts with a fake installer and a fake /proc.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  NO_DISPLAY_REASON,
  OFFLINE_HINT,
  USERNS_SYSCTLS,
  electronDownloadHost,
  electronEnv,
  failedStartReason,
  findElectronBinary,
  hasDisplay,
  sandboxBlocker,
  sandboxHelperPath,
  setupBlocker,
  shouldFallBack,
  tailKeeper,
  usesProxy,
} from './startDecision.mjs';

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
 *   procRoot?: string,
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
  if (!hasDisplay(platform, env)) return browser(NO_DISPLAY_REASON);

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
    log(
      `MiniHarness: downloading Electron${version ? ` ${version}` : ''} with its own installer (node_modules/electron/install.js)…`,
    );
    const run = await runNode(input.installerScript ?? join(electronPackage, 'install.js'), [], {
      cwd: root,
      env: electronEnv(env),
    });
    if (!run.ok) return browser(`Electron's installer failed (${run.how}); run \`npx install-electron\` to see why`);
    binary = findElectronBinary(probe);
    if ('reason' in binary) return browser(`Electron's installer finished, but ${binary.reason}`);
  }

  const helperPath = sandboxHelperPath(binary.path);
  const sandbox = sandboxBlocker({
    platform,
    ...readUsernsSysctls(input.procRoot),
    helperPath,
    helper: statOf(helperPath),
  });
  if (sandbox) return browser(sandbox);
  return { mode: 'electron', electronPath: binary.path };
}

/**
 * The two user-namespace switches as /proc shows them (undefined where the kernel has none).
 * @param {string} [procRoot] '/' unless a test stands in a folder for it
 */
function readUsernsSysctls(procRoot = '/') {
  return {
    apparmorRestrict: readText(join(procRoot, USERNS_SYSCTLS.apparmorRestrict)),
    usernsClone: readText(join(procRoot, USERNS_SYSCTLS.usernsClone)),
  };
}

/** @param {string} path @returns {{ uid: number, mode: number } | undefined} */
function statOf(path) {
  try {
    const { uid, mode } = statSync(path);
    return { uid, mode };
  } catch {
    return undefined;
  }
}

/**
 * Runs Electron with the terminal attached and says how it ended: `fallBack` with the one-line
 * reason when it failed right at startup (browser mode follows), else its exit. stderr reaches
 * the terminal as it comes, and its tail is kept: Chromium's abort message for a sandbox helper
 * that is not set up turns into the line with the fix.
 * @param {{
 *   electronPath: string,
 *   args: string[],
 *   cwd: string,
 *   env: Record<string, string | undefined>,
 *   stderr?: { write(chunk: string): unknown },
 *   onChild?: (child: import('node:child_process').ChildProcess) => void,
 *   interrupted?: () => boolean,
 * }} input
 * @returns {Promise<{ fallBack: string } | { code: number | null, signal: NodeJS.Signals | null }>}
 */
export function launchElectron({
  electronPath,
  args,
  cwd,
  env,
  stderr = process.stderr,
  onChild,
  interrupted = () => false,
}) {
  return new Promise((resolve) => {
    const startedAt = Date.now();
    const child = spawn(electronPath, args, { cwd, env: electronEnv(env), stdio: ['inherit', 'inherit', 'pipe'] });
    onChild?.(child);
    const tail = tailKeeper(16_384);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (/** @type {string} */ chunk) => {
      stderr.write(chunk);
      tail.add(chunk);
    });
    // A failed spawn may report both 'error' and 'close'; act on the first only. 'close', not
    // 'exit': by then all of stderr has been read.
    let settled = false;
    child.once('error', (error) => {
      if (settled) return;
      settled = true;
      resolve({ fallBack: `Electron could not be started (${error.message})` });
    });
    child.once('close', (code, signal) => {
      if (settled) return;
      settled = true;
      if (shouldFallBack({ code, signal, elapsedMs: Date.now() - startedAt, interrupted: interrupted() })) {
        resolve({ fallBack: failedStartReason({ code, signal, stderrTail: tail.text, electronPath }) });
      } else {
        resolve({ code, signal });
      }
    });
  });
}

/** @param {string} reason @returns {LaunchPlan} */
function browser(reason) {
  return { mode: 'browser', reason };
}

/**
 * @param {PrepareInput} input
 * @returns {Promise<string | undefined>}
 */
async function findSetupBlocker({ root, env, nodeVersion, probeTimeoutMs }) {
  const engines = projectEngines(root);
  const blocked = setupBlocker({ nodeVersion, env, ...(engines ? { engines } : {}) });
  if (blocked) return blocked;
  if (usesProxy(env)) return undefined;
  const { host, port } = electronDownloadHost(env);
  const reachable = await canConnect(host, port, probeTimeoutMs ?? PROBE_TIMEOUT_MS);
  return reachable ? undefined : `offline (${host}:${port} cannot be reached); ${OFFLINE_HINT}`;
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

/** package.json's `engines.node`. @param {string} root @returns {string | undefined} */
function projectEngines(root) {
  const text = readText(join(root, 'package.json'));
  try {
    const engines = text === undefined ? undefined : JSON.parse(text).engines?.node;
    return typeof engines === 'string' ? engines : undefined;
  } catch {
    return undefined;
  }
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
