// `npm run package`: builds the app and packages it with electron-builder (electron-builder.yml:
// asar, better-sqlite3 rebuilt for Electron, fuses flipped). Arguments go to electron-builder
// (e.g. `npm run package -- --linux AppImage`). Packaging downloads Electron and runs
// @electron/rebuild, which need Node.js 22.12+; Node's build of better-sqlite3 in node_modules is
// put back afterwards (scripts/keepNodeBuild.mjs), so tests and browser mode keep working.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBuildFiles, snapshot } from './keepNodeBuild.mjs';
import { ELECTRON_TOOLING_NODE, nodeAtLeast } from './startDecision.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (!nodeAtLeast(process.version, ELECTRON_TOOLING_NODE)) {
  console.error(`MiniHarness: packaging needs Node.js ${ELECTRON_TOOLING_NODE} or later (electron-builder's native rebuild and Electron's download); this is ${process.version}.`);
  process.exit(1);
}

const nodeBuild = snapshot(nodeBuildFiles(root));
let status = 1;
try {
  status = run(join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), ['build']);
  if (status === 0) status = run(join(root, 'node_modules', 'electron-builder', 'cli.js'), process.argv.slice(2));
} finally {
  nodeBuild.restore();
}
process.exit(status);

/** @param {string} script @param {string[]} args */
function run(script, args) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  return result.status ?? 1;
}
