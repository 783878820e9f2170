// `npm start`: builds the app when out/ is missing or older than its sources, gets what Electron
// needs on first run (its binary through Electron's own installer: scripts/prepareLaunch.mjs), then
// runs the Electron app — or, where Electron cannot run (no display, offline on first run, a
// Node.js too old for Electron's tooling, a failed download, a Linux sandbox helper that is not
// set up, or it fails at startup), the browser-mode host, after one line saying why and what to
// do. Arguments after `npm start --` go to either.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchElectron, prepareLaunch } from './prepareLaunch.mjs';
import { BUILD_INPUTS, BUILD_OUTPUTS, browserModeLine, isBuildStale } from './startDecision.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `node scripts/start.mjs -- --port 1` passes a literal '--' (npm start strips its own).
const args = process.argv[2] === '--' ? process.argv.slice(3) : process.argv.slice(2);
const WEB_CLI = 'electron/web/cli.ts';

build();
const decision = await prepareLaunch({
  root,
  platform: process.platform,
  arch: process.arch,
  env: process.env,
  nodeVersion: process.version,
});
if (decision.mode === 'electron') runElectron(decision.electronPath);
else runBrowserMode(decision.reason);

function build() {
  const outputMtimes = BUILD_OUTPUTS.map((file) => mtimeOf(join(root, file)));
  const newestInputMtime = Math.max(0, ...BUILD_INPUTS.map((input) => newestMtime(join(root, input))));
  if (!isBuildStale({ outputMtimes, newestInputMtime })) return;
  console.log('MiniHarness: building the app (electron-vite build)…');
  const result = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) {
    console.error('MiniHarness: the build failed (see above).');
    process.exit(result.status ?? 1);
  }
}

function runElectron(electronPath) {
  let interrupted = false;
  /** @type {() => void} */
  let forget = () => undefined;
  launchElectron({
    electronPath,
    args: ['.', ...args],
    cwd: root,
    env: process.env,
    onChild: (child) => {
      forget = forwardSignals(child, () => {
        interrupted = true;
      });
    },
    interrupted: () => interrupted,
  }).then((ended) => {
    forget();
    if ('fallBack' in ended) runBrowserMode(ended.fallBack);
    else exitLike(ended.code, ended.signal);
  });
}

function runBrowserMode(reason) {
  console.log(browserModeLine(reason));
  if (!existsSync(join(root, WEB_CLI))) {
    console.error(`MiniHarness: browser mode is not available in this checkout (${WEB_CLI} is missing).`);
    process.exit(1);
  }
  const child = spawn(process.execPath, ['--import', 'tsx', WEB_CLI, ...args], {
    cwd: root,
    env: process.env,
    stdio: 'inherit',
  });
  const forget = forwardSignals(child, () => undefined);
  child.on('error', (error) => {
    console.error(`MiniHarness: could not start browser mode (${error.message}).`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    forget();
    exitLike(code, signal);
  });
}

/**
 * Passes termination signals to the child and waits for it to finish cleaning up. Ctrl+C in a
 * terminal already reaches the child (same process group), so SIGINT is forwarded only when
 * there is no terminal.
 */
function forwardSignals(child, onSignal) {
  const handlers = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((signal) => {
    const handler = () => {
      onSignal();
      if (signal !== 'SIGINT' || !process.stdin.isTTY) child.kill(signal);
    };
    process.on(signal, handler);
    return [signal, handler];
  });
  return () => handlers.forEach(([signal, handler]) => process.off(signal, handler));
}

function exitLike(code, signal) {
  process.exit(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
}

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The newest modification time of a file, or of any file under a folder. */
function newestMtime(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry.name)));
  }
  return newest;
}
