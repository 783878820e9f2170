// `npm run package`: builds the app and packages it with electron-builder (electron-builder.yml:
// asar, native modules unpacked as installed — better-sqlite3's Node-API prebuild serves Electron
// too —, fuses flipped). Arguments go to electron-builder (e.g. `npm run package -- --linux
// AppImage`). Packaging downloads Electron, whose tooling needs Node.js 22.12+.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ELECTRON_TOOLING_NODE, nodeAtLeast } from './startDecision.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (!nodeAtLeast(process.version, ELECTRON_TOOLING_NODE)) {
  console.error(
    `MiniHarness: packaging needs Node.js ${ELECTRON_TOOLING_NODE} or later (Electron's download and electron-builder); this is ${process.version}.`,
  );
  process.exit(1);
}

let status = run(join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), ['build']);
if (status === 0) status = run(join(root, 'node_modules', 'electron-builder', 'cli.js'), process.argv.slice(2));
process.exit(status);

/** @param {string} script @param {string[]} args */
function run(script, args) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  return result.status ?? 1;
}
